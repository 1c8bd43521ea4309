/**
 * `POST` and `GET /v1/sdk/violations`: violation reports from apps, listed
 * newest first with filters and the count of every match.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "../../core/contract/limits.ts";
import { severitySchema, violationPageSchema, violationReportSchema } from "../../core/contract/violation.ts";
import { pageSize, queryInteger, timestampInput } from "../../core/contract/wire_values.ts";
import { json } from "../../core/http/json.ts";
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

/** The violation routes. */
export const violationRoutes = [
  defineRoute({
    name: "reportViolation",
    method: "POST",
    path: "/v1/sdk/violations",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Report a violation",
    body: violationReportSchema,
    responses: { 200: z.object({ ok: z.literal(true), id: z.uuid() }) },
    async run({ caller, body: { violation: v } }, deps) {
      const id = crypto.randomUUID();
      const stored = {
        id,
        keyId: v.apiKeyId,
        userId: v.userId ?? null,
        intent: v.intent ?? null,
        kind: v.kind,
        severity: v.severity,
        message: v.message ?? null,
        metadata: v.metadata ?? {},
        createdAt: v.at ?? new Date().toISOString(),
      };
      await deps.storage.addViolation(caller.projectId, stored);
      await applyAutoRevoke(deps, caller.projectId, stored);
      return json({ ok: true, id });
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
