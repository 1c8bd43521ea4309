/**
 * The inbox: `GET /v1/agent/inbox` and `POST /v1/agent/ack` for the agent's
 * own inbox, and `/v1/agents/:agentId/inbox|ack` for the project's tooling.
 *
 * @module
 */
import { z } from "zod";
import { acknowledgedSchema, errorEnvelopeSchema, type InboxItem, inboxPageSchema } from "../../core/contract/mod.ts";
import { SvcError } from "../../core/errors/mod.ts";
import { MAX_LEASE_SECONDS, RELEASED } from "./inbox_leases.ts";
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
  lease: leaseSeconds("Lease the items handed out for this many seconds: no other poll gets them meanwhile")
    .optional(),
});

/**
 * Seconds of a lease in a query string, 1 to {@linkcode MAX_LEASE_SECONDS}.
 *
 * @param description What the seconds are.
 * @returns The schema.
 */
function leaseSeconds(description: string) {
  return queryInteger(1).pipe(z.int().max(MAX_LEASE_SECONDS, `Must be at most ${MAX_LEASE_SECONDS}`))
    .describe(`${description} (1 to ${MAX_LEASE_SECONDS})`);
}

/** Lease ids, as handed out with the items of a poll with `lease`. */
const leaseIds = z.array(z.string().min(1).max(200)).min(1).max(MAX_BATCH);

/** The body of the acknowledgement routes: inbox ids, lease ids, or both. */
export const ackBody = z.object({
  inboxIds: z.array(z.int().min(1)).min(1).max(MAX_BATCH).optional(),
  leaseIds: leaseIds.optional().describe("Leases of items handed out by a poll with `lease`"),
}).refine((body) => body.inboxIds !== undefined || body.leaseIds !== undefined, {
  message: "Give inboxIds or leaseIds",
  path: ["inboxIds"],
});

/** The body of `POST /v1/agent/leases/extend`. */
export const extendBody = z.object({
  leaseIds,
  seconds: z.int().min(1).max(MAX_LEASE_SECONDS).describe("The lease's new end, in seconds from now"),
});

/** The body of `POST /v1/agent/leases/release`. */
export const releaseBody = z.object({
  leaseIds,
  delaySeconds: z.int().min(0).max(MAX_LEASE_SECONDS).default(0)
    .describe("Back in the queue after this many seconds (0: at once)"),
  reason: storedText(1, 200).optional().describe("Recorded on the item if this makes it a dead letter"),
});

/** The answer of `POST /v1/agent/leases/extend`. */
export const extendedSchema: z.ZodType<
  { ok: true; extended: number; leases: { leaseId: string; leaseExpiresAt: string }[] }
> = z.object({
  ok: z.literal(true),
  extended: z.int().min(1),
  leases: z.array(z.object({ leaseId: z.string(), leaseExpiresAt: z.string() })),
});

/** The answer of `POST /v1/agent/leases/release`. */
export const releasedSchema: z.ZodType<{ ok: true; released: number }> = z.object({
  ok: z.literal(true),
  released: z.int().min(1),
});

/** No lease id given is a live lease of the caller's inbox (someone else's is not told apart from none). */
function noLease(): SvcError {
  return new SvcError("NOT_FOUND", "No such lease in force: it ended, was released, or is not yours");
}

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
    run: ({ caller, body }, deps) => acknowledge(deps, caller.projectId, caller.agentId, body),
  }),
  defineRoute({
    name: "extendLeases",
    method: "POST",
    path: "/v1/agent/leases/extend",
    auth: "agent",
    limit: "agentKey",
    summary: "Extend the leases of items the calling agent was handed out",
    body: extendBody,
    responses: { 200: extendedSchema, 404: errorEnvelopeSchema },
    async run({ caller, body }, { inbox }) {
      const ids = [...new Set(body.leaseIds)];
      const leases = await inbox.extend(caller.projectId, caller.agentId, ids, body.seconds);
      if (leases.length === 0) throw noLease();
      return json({ ok: true, extended: leases.length, leases });
    },
  }),
  defineRoute({
    name: "releaseLeases",
    method: "POST",
    path: "/v1/agent/leases/release",
    auth: "agent",
    limit: "agentKey",
    summary: "Release leased items back to the queue, optionally after a delay",
    body: releaseBody,
    responses: { 200: releasedSchema, 404: errorEnvelopeSchema },
    async run({ caller, body }, { inbox }) {
      const ids = [...new Set(body.leaseIds)];
      const released = await inbox.release(
        caller.projectId,
        caller.agentId,
        ids,
        body.delaySeconds,
        body.reason ?? RELEASED,
      );
      if (released === 0) throw noLease();
      return json({ ok: true, released });
    },
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
    run: ({ caller, body, params }, deps) => acknowledge(deps, caller.projectId, params.agentId, body),
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
  const { lease } = query;
  waiters.watch(watchedStorage(storage), recheckMs);
  const release = query.wait > 0 ? waiters.admit(projectId, keyId) : undefined;
  let found: { rows: InboxItem[]; waited: boolean };
  try {
    found = await readOrWait(
      () => waiters.subscribe(projectId, agentId),
      () =>
        lease === undefined
          ? deps.inbox.read(projectId, agentId, query.cursor, query.limit)
          : deps.inbox.lease(projectId, agentId, query.cursor, query.limit, lease),
      {
        deadline: deps.inbox.now() + query.wait * 1000,
        now: deps.inbox.now,
        signal: req.signal,
        closing: deps.closing,
        // A leased poll also wakes when the next lease ends (a time, not a timer per item), and looks again every
        // re-check while leases are out, for a release on another node.
        sliceMs: lease === undefined ? undefined : async () => {
          const end = await deps.inbox.nextLeaseEnd(projectId, agentId);
          return end === null ? Infinity : Math.min(end - deps.inbox.now(), recheckMs);
        },
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
  body: z.output<typeof ackBody>,
): Promise<Response> {
  const ids = [...new Set(body.inboxIds)];
  const acknowledged = await inbox.acknowledge(projectId, agentId, ids, [...new Set(body.leaseIds)]);
  return json({ ok: true, acknowledged });
}
