/**
 * `POST` and `GET /v1/sdk/violations`: violation reports.
 *
 * @module
 */
import { json } from "../../core/http/json.ts";
import type { RouteHandlers } from "../route_handler.ts";

/** The violation handlers. */
export const violationHandlers: RouteHandlers<"reportViolation" | "listViolations"> = {
  async reportViolation({ caller, body: { violation: v } }, { storage }) {
    const id = crypto.randomUUID();
    await storage.addViolation(caller.projectId, {
      id,
      keyId: v.apiKeyId,
      userId: v.userId ?? null,
      intent: v.intent ?? null,
      kind: v.kind,
      severity: v.severity,
      message: v.message ?? null,
      metadata: v.metadata ?? {},
      createdAt: v.at ?? new Date().toISOString(),
    });
    return json({ ok: true, id });
  },
  async listViolations({ caller, query }, { storage }) {
    return json(await storage.listViolations(caller.projectId, query));
  },
};
