/**
 * `POST /v1/events`: one event or a batch, stored in one transaction and
 * deduplicated by `eventId` per project; waiting pollers are woken.
 *
 * @module
 */
import { json } from "../../core/http/json.ts";
import type { RouteHandlers } from "../route_handler.ts";

/** The event handler. */
export const eventHandlers: RouteHandlers<"emitEvents"> = {
  async emitEvents({ caller, body }, { storage, waiters }) {
    const batch = "events" in body;
    const events = batch ? body.events : [body];
    const results = await storage.appendEvents(caller.projectId, events, new Date().toISOString());
    const woken = new Set(results.filter((r) => !r.duplicate).map((r) => r.agentId));
    for (const agentId of woken) waiters.notify(caller.projectId, agentId);
    const answers = results.map(({ eventId, inboxId, duplicate }) => ({ ok: true, eventId, inboxId, duplicate }));
    // 202 when something new was queued, 200 when every event was a duplicate.
    const status = woken.size > 0 ? 202 : 200;
    return json(batch ? { ok: true, results: answers } : answers[0], status);
  },
};
