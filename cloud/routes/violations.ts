/**
 * `POST` and `GET /v1/sdk/violations`, `POST /v1/sdk/violations/batch`: violation
 * reports from apps (one, or up to 500 stored in one transaction), listed
 * newest first with filters and the count of every match.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "../../core/contract/limits.ts";
import {
  severitySchema,
  type Violation as ViolationRecord,
  violationBatchSchema,
  violationPageSchema,
  type ViolationReport,
  violationReportSchema,
} from "../../core/contract/violation.ts";
import { pageSize, queryInteger, timestampInput } from "../../core/contract/wire_values.ts";
import { json } from "../../core/http/json.ts";
import { singleBody } from "../../core/http/single_body.ts";
import { defineRoute } from "./cloud_side.ts";
import { applyAutoRevoke } from "./policy.ts";

/** The query of `GET /v1/sdk/violations`; `since` is inclusive. */
export const violationsQuery = z.object({
  keyId: storedText(1, 200).optional().describe("Only this key's"),
  kind: storedText(1, 100).optional().describe("Only this kind"),
  severity: severitySchema.optional().describe("Only this severity"),
  since: timestampInput.optional().describe("Only at or after this time"),
  limit: pageSize(0),
  offset: queryInteger().default(0).describe("Matches to skip"),
});

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
    limit: "projectWrites",
    summary: "Report a violation (batches: POST /v1/sdk/violations/batch)",
    body: singleBody(violationReportSchema, {
      route: "POST /v1/sdk/violations",
      takes: "one report",
      field: "violations",
      batchRoute: "POST /v1/sdk/violations/batch",
    }),
    responses: { 200: reportedOne },
    async run({ caller, body }, deps) {
      const record = toRecord(body.violation);
      await deps.storage.addViolation(caller.projectId, record);
      await applyAutoRevoke(deps, caller.projectId, record);
      return json({ ok: true, id: record.id });
    },
  }),
  defineRoute({
    name: "reportViolationBatch",
    method: "POST",
    path: "/v1/sdk/violations/batch",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Report up to 500 violations, stored in one transaction; their ids in the order of the reports",
    body: violationBatchSchema,
    responses: { 200: reportedBatch },
    async run({ caller, body }, deps) {
      const records = body.violations.map(toRecord);
      await deps.storage.addViolations(caller.projectId, records);
      for (const record of records) await applyAutoRevoke(deps, caller.projectId, record);
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
    async run({ caller, query }, { storage }) {
      return json(await storage.listViolations(caller.projectId, query));
    },
  }),
];
