/**
 * `POST` and `GET /v1/sdk/violations`, `POST /v1/sdk/violations/batch`: violation
 * reports from apps (one, or up to 500 stored in one transaction), listed
 * newest first with filters and the count of every match.
 *
 * @module
 */
import { z } from "zod";
import {
  type Violation as ViolationRecord,
  violationBatchSchema,
  violationPageSchema,
  type ViolationReport,
  violationReportSchema,
} from "../../core/contract/mod.ts";
import { json, singleBody } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { ViolationService } from "./violation_service.ts";
import type { ReportedViolation } from "./violation_repository.ts";

const defineRoute = cloudRouteDefiner<{ violations: ViolationService }>();
import { violationsQuery } from "./violation_query.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The answer to one report: a repeated `reportId` answers as the first delivery did, with `duplicate: true`. */
const reportedOne = z.object({
  ok: z.literal(true),
  id: z.uuid().describe("The stored violation's id (the first delivery's, for a duplicate)"),
  duplicate: z.boolean().describe("`true` when the reportId was already stored: nothing new was counted"),
});
/** The answer to a batch: the ids in the order of the reports, and which were duplicates. */
const reportedBatch = z.object({
  ok: z.literal(true),
  ids: z.array(z.uuid()).describe("The stored violations' ids, in the order of the reports"),
  duplicates: z.array(z.boolean()).describe("Per report, in order: `true` when its reportId was already stored"),
});

/** A report as it arrives: its violation and its `reportId`. */
function toRecord(v: ViolationReport): ReportedViolation {
  return { violation: toViolation(v), reportId: v.reportId ?? null };
}

/** The violation a report holds, with a fresh id and, by default, the time of the report. */
function toViolation(v: ViolationReport): ViolationRecord {
  return {
    id: PLATFORM.randomUUID(),
    keyId: v.apiKeyId,
    userId: v.userId ?? null,
    intent: v.intent ?? null,
    kind: v.kind,
    severity: v.severity,
    message: v.message ?? null,
    metadata: v.metadata ?? {},
    createdAt: v.at ?? new Date(PLATFORM.now()).toISOString(),
  };
}

/** The violation routes. */
export const violationRoutes = [
  defineRoute({
    name: "reportViolation",
    method: "POST",
    path: "/v1/sdk/violations",
    auth: "sdk",
    limit: "projectViolations",
    summary: "Report a violation (batches: POST /v1/sdk/violations/batch)",
    body: singleBody(violationReportSchema, {
      route: "POST /v1/sdk/violations",
      takes: "one report",
      field: "violations",
      batchRoute: "POST /v1/sdk/violations/batch",
    }),
    responses: { 200: reportedOne },
    async run({ caller, body }, { violations }) {
      const [{ id, duplicate }] = await violations.report(caller.projectId, [toRecord(body.violation)]);
      return json({ ok: true, id, duplicate });
    },
  }),
  defineRoute({
    name: "reportViolationBatch",
    method: "POST",
    path: "/v1/sdk/violations/batch",
    auth: "sdk",
    limit: "projectViolations",
    summary: "Report up to 500 violations, stored in one transaction; their ids in the order of the reports",
    body: violationBatchSchema,
    responses: { 200: reportedBatch },
    async run({ caller, body }, { violations }) {
      const stored = await violations.report(caller.projectId, body.violations.map(toRecord));
      return json({ ok: true, ids: stored.map((r) => r.id), duplicates: stored.map((r) => r.duplicate) });
    },
  }),
  defineRoute({
    name: "listViolations",
    method: "GET",
    path: "/v1/sdk/violations",
    auth: "sdk",
    summary: "List violations, newest first (ties by id), with the count of every match",
    query: violationsQuery,
    responses: { 200: violationPageSchema },
    async run({ caller, query }, { violations }) {
      return json(await violations.list(caller.projectId, query));
    },
  }),
];
