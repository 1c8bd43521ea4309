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

const defineRoute = cloudRouteDefiner<{ violations: ViolationService }>();
import { violationsQuery } from "./violation_query.ts";

/** The answer to one report. */
const reportedOne = z.object({ ok: z.literal(true), id: z.uuid() });
/** The answer to a batch: the ids in the order of the reports. */
const reportedBatch = z.object({ ok: z.literal(true), ids: z.array(z.uuid()) });

/** A report as stored, with a fresh id and, by default, the time of the report. */
function toRecord(v: ViolationReport): ViolationRecord {
  return {
    id: crypto.randomUUID(),
    keyId: v.apiKeyId,
    userId: v.userId ?? null,
    intent: v.intent ?? null,
    kind: v.kind,
    severity: v.severity,
    message: v.message ?? null,
    metadata: v.metadata ?? {},
    createdAt: v.at ?? new Date().toISOString(),
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
      const record = toRecord(body.violation);
      await violations.report(caller.projectId, [record]);
      return json({ ok: true, id: record.id });
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
      const records = body.violations.map(toRecord);
      await violations.report(caller.projectId, records);
      return json({ ok: true, ids: records.map((r) => r.id) });
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
