/**
 * The inbox: `GET /v1/agent/inbox` and `POST /v1/agent/ack` for the agent's
 * own inbox, and `/v1/agents/:agentId/inbox|ack` for the project's tooling.
 *
 * @module
 */
import { z } from "zod";
import { acknowledgedSchema, type InboxItem, inboxPageSchema } from "../../core/contract/mod.ts";
import { storedText } from "../../core/contract/mod.ts";
import { MAX_BATCH, pageSize, queryInteger, waitSeconds } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { type InboxWaiters, readOrWait, type RevocationSequence, watchedStorage } from "../feed/mod.ts";
import { type AuthStorage, cloudRouteDefiner, type CloudRouteDeps, reauthenticate } from "../routes/mod.ts";
import type { InboxService } from "./inbox_service.ts";
import type { InboxRepository } from "./inbox_repository.ts";

/** What the inbox routes are given. */
export interface InboxRouteDeps extends CloudRouteDeps {
  /** What authentication reads, and what the shared watcher reads of the inboxes and the revocation feed. */
  storage: AuthStorage & { inbox: InboxRepository; keys: RevocationSequence };
  /** Events and inboxes. */
  inbox: InboxService;
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
}

const defineRoute = cloudRouteDefiner<InboxRouteDeps>();

/** The query of the inbox polls. */
export const inboxQuery = z.object({
  cursor: queryInteger().default(0).describe("Items after this inboxId; 0 to start"),
  limit: pageSize(1),
  wait: waitSeconds,
});

/** The body of the acknowledgement routes. */
export const ackBody = z.object({ inboxIds: z.array(z.int().min(1)).min(1).max(MAX_BATCH) });

/** The path of the tooling routes. */
export const agentPath = z.object({ agentId: storedText(1, 200) });

/** The inbox routes. */
export const inboxRoutes = [
  defineRoute({
    name: "pollInbox",
    method: "GET",
    path: "/v1/agent/inbox",
    auth: "agent",
    limit: "agentKey",
    summary: "Poll the calling agent's inbox",
    query: inboxQuery,
    responses: { 200: inboxPageSchema },
    run: ({ req, caller, query }, deps) =>
      poll(deps, caller.projectId, caller.agentId, caller.keyId, query, req, "agent"),
  }),
  defineRoute({
    name: "acknowledge",
    method: "POST",
    path: "/v1/agent/ack",
    auth: "agent",
    limit: "agentKey",
    summary: "Acknowledge handled inbox items",
    body: ackBody,
    responses: { 200: acknowledgedSchema },
    run: ({ caller, body }, deps) => acknowledge(deps, caller.projectId, caller.agentId, body.inboxIds),
  }),
  defineRoute({
    name: "pollAgentInbox",
    method: "GET",
    path: "/v1/agents/:agentId/inbox",
    auth: "sdk",
    summary: "Poll an agent's inbox (tooling)",
    query: inboxQuery,
    params: agentPath,
    responses: { 200: inboxPageSchema },
    run: ({ req, caller, query, params }, deps) =>
      poll(deps, caller.projectId, params.agentId, null, query, req, "sdk"),
  }),
  defineRoute({
    name: "acknowledgeForAgent",
    method: "POST",
    path: "/v1/agents/:agentId/ack",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Acknowledge an agent's inbox items (tooling)",
    body: ackBody,
    params: agentPath,
    responses: { 200: acknowledgedSchema },
    run: ({ caller, body, params }, deps) => acknowledge(deps, caller.projectId, params.agentId, body.inboxIds),
  }),
];

/**
 * Reads waiting items after the cursor; with `wait`, holds an empty poll open
 * (within the per-key and per-project caps) until an item arrives (woken
 * in-process, or by the node's shared watcher for events stored by other
 * processes), the time runs out, the client goes away, or the cloud closes.
 * Items found after waiting are returned only if the credential still holds
 * (revoked or rotated meanwhile: 401).
 */
async function poll(
  deps: InboxRouteDeps,
  projectId: string,
  agentId: string,
  keyId: string | null,
  query: z.output<typeof inboxQuery>,
  req: Request,
  auth: "sdk" | "agent",
): Promise<Response> {
  const { storage, waiters, recheckMs } = deps;
  waiters.watch(watchedStorage(storage), recheckMs);
  const release = query.wait > 0 ? waiters.admit(projectId, keyId) : undefined;
  let found: { rows: InboxItem[]; waited: boolean };
  try {
    found = await readOrWait(
      () => waiters.subscribe(projectId, agentId),
      () => deps.inbox.read(projectId, agentId, query.cursor, query.limit),
      {
        deadline: deps.inbox.now() + query.wait * 1000,
        now: deps.inbox.now,
        signal: req.signal,
        closing: deps.closing,
      },
    );
  } finally {
    release?.();
  }
  const { rows: items, waited } = found;
  if (waited && items.length > 0) await reauthenticate(req, auth, projectId, storage);
  const nextCursor = items.length > 0 ? items[items.length - 1].inboxId : query.cursor;
  return json({ items, nextCursor });
}

async function acknowledge(
  { inbox }: InboxRouteDeps,
  projectId: string,
  agentId: string,
  inboxIds: number[],
): Promise<Response> {
  const ids = [...new Set(inboxIds)];
  const acknowledged = await inbox.acknowledge(projectId, agentId, ids);
  return json({ ok: true, acknowledged });
}
