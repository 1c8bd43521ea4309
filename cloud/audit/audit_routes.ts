/**
 * `GET /v1/sdk/audit`: the project's audit log, newest first, filtered and
 * paged like the violations.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "../../core/contract/mod.ts";
import { isoTimestamp, pageSize, queryInteger, timestampInput } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { AuditService } from "./audit_service.ts";

const defineRoute = cloudRouteDefiner<{ audit: AuditService }>();

/** The query of `GET /v1/sdk/audit`; `since` is inclusive. */
export const auditQuery = z.object({
  action: storedText(1, 100).optional().describe("Only this action, such as key.revoke"),
  key: storedText(1, 100).optional().describe("Only entries about this key (its id)"),
  since: timestampInput.optional().describe("Only at or after this time"),
  limit: pageSize(0),
  offset: queryInteger().default(0).describe("Matches to skip"),
});

/** An audit entry on the wire. */
export const auditEntrySchema = z.object({
  id: z.int().min(1),
  actor: z.string().describe("cli, sdk, system, or an operator's email"),
  action: z.string(),
  target: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
  sourceAddress: z.string().nullable(),
  createdAt: isoTimestamp.describe("When it happened: for an app's action (a mirrored key, a revoke), the app's time"),
  receivedAt: isoTimestamp.describe(
    "When the cloud received it: createdAt, or later for an action an app's outbox delivered after an outage",
  ),
});

/** The audit route. */
export const auditRoutes = [
  defineRoute({
    name: "listAudit",
    method: "GET",
    path: "/v1/sdk/audit",
    auth: "sdk",
    summary: "List the project's audit log, newest first, with the count of every match",
    query: auditQuery,
    responses: { 200: z.object({ entries: z.array(auditEntrySchema), total: z.int().min(0) }) },
    async run({ caller, query }, { audit }) {
      const { key, ...filters } = query;
      const page = await audit.list({ projectId: caller.projectId, keyId: key, ...filters });
      const entries = page.entries.map(({ projectId: _, ...entry }) => entry);
      return json({ entries, total: page.total });
    },
  }),
];
