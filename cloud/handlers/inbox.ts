/**
 * The inbox: `GET /v1/agent/inbox` and `POST /v1/agent/ack` for the agent's
 * own inbox, and `/v1/agents/:agentId/inbox|ack` for the project's tooling.
 *
 * @module
 */
import { json } from "../../core/http/json.ts";
import type { CloudServices, RouteHandlers } from "../route_handler.ts";
import type { InboxItem } from "../storage/cloud_storage.ts";

/** What an inbox poll asks for, once validated. */
interface PollQuery {
  cursor: number;
  limit: number;
  wait: number;
}

/** The inbox handlers. */
export const inboxHandlers: RouteHandlers<"pollInbox" | "acknowledge" | "pollAgentInbox" | "acknowledgeForAgent"> = {
  pollInbox({ req, caller, query }, services) {
    return poll(services, caller.projectId, caller.agentId, caller.keyId, query, req.signal);
  },
  acknowledge({ caller, body }, services) {
    return acknowledge(services, caller.projectId, caller.agentId, body.inboxIds);
  },
  pollAgentInbox({ req, caller, query, params }, services) {
    return poll(services, caller.projectId, params.agentId, null, query, req.signal);
  },
  acknowledgeForAgent({ caller, body, params }, services) {
    return acknowledge(services, caller.projectId, params.agentId, body.inboxIds);
  },
};

/**
 * Reads waiting items after the cursor; with `wait`, holds an empty poll open
 * (within the per-key and per-project caps) until an item arrives (woken
 * in-process, or by the node's shared watcher for events stored by other
 * processes), the time runs out, the client goes away, or the cloud closes.
 */
async function poll(
  services: CloudServices,
  projectId: string,
  agentId: string,
  keyId: string | null,
  query: PollQuery,
  signal: AbortSignal,
): Promise<Response> {
  const { storage, waiters, recheckMs } = services;
  const deadline = Date.now() + query.wait * 1000;
  waiters.watch(storage, recheckMs);
  const release = query.wait > 0 ? waiters.admit(projectId, keyId) : undefined;
  let items: InboxItem[];
  try {
    for (;;) {
      // Subscribe before reading, so an event stored in between still wakes us.
      const subscription = waiters.subscribe(projectId, agentId);
      try {
        items = await storage.listInbox(projectId, agentId, query.cursor, query.limit);
        const left = deadline - Date.now();
        if (items.length > 0 || left <= 0 || signal.aborted || services.closing()) break;
        await subscription.wait(left, signal);
      } finally {
        subscription.cancel();
      }
    }
  } finally {
    release?.();
  }
  const nextCursor = items.length > 0 ? items[items.length - 1].inboxId : query.cursor;
  return json({ items, nextCursor });
}

async function acknowledge(
  { storage }: CloudServices,
  projectId: string,
  agentId: string,
  inboxIds: number[],
): Promise<Response> {
  const ids = [...new Set(inboxIds)];
  const acknowledged = await storage.acknowledge(projectId, agentId, ids, new Date().toISOString());
  return json({ ok: true, acknowledged });
}
