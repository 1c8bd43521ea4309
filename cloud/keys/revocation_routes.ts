/**
 * `GET /v1/sdk/keys/revocations`: the project's revocation feed, which
 * hybrid and cloud-mode apps follow with one long poll each.
 *
 * @module
 */
import { z } from "zod";
import { type Revocation, revocationPageSchema } from "../../core/contract/mod.ts";
import { pageSize, queryInteger, waitSeconds } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import {
  type InboxChanges,
  type InboxWaiters,
  readOrWait,
  type RevocationSequence,
  watchedStorage,
} from "../feed/mod.ts";
import { type AuthStorage, cloudRouteDefiner, type CloudRouteDeps, reauthenticate } from "../routes/mod.ts";
import type { KeyService } from "./key_service.ts";

/** What the feed's route is given. */
export interface RevocationRouteDeps extends CloudRouteDeps {
  /** What authentication reads, and what the shared watcher reads of the inboxes and the revocation feed. */
  storage: AuthStorage & { inbox: InboxChanges; keys: RevocationSequence };
  /** Keys and the revocation feed. */
  keys: KeyService;
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
  /** The connected apps' record of a feed poll (the apps feature's service). */
  apps: {
    /**
     * Records a feed poll that passed SDK auth and was admitted, from its headers; a poll without an instance id
     * stores nothing.
     */
    seen(projectId: string, headers: Headers, cursor: number): Promise<void>;
  };
  /** Where a failure that does not stop the poll goes (a due revocation that could not be written). */
  log: ErrorLogger;
}

/** How soon a poll answers when a due revocation could not be written, so the next poll tries again. */
const DUE_WRITE_RETRY_MS = 1000;

const defineRoute = cloudRouteDefiner<RevocationRouteDeps>();

/** The query of the feed. */
export const revocationsQuery = z.object({
  after: queryInteger().default(0).describe("Revocations after this seq; 0 to start"),
  limit: pageSize(1),
  wait: waitSeconds,
});

/** The feed's route. */
export const revocationRoutes = [
  defineRoute({
    name: "listRevocations",
    method: "GET",
    path: "/v1/sdk/keys/revocations",
    auth: "sdk",
    summary: "Follow the project's revocation feed (with wait, a long poll)",
    query: revocationsQuery,
    responses: { 200: revocationPageSchema },
    async run({ req, caller, query }, deps) {
      const { keys, storage, waiters, recheckMs } = deps;
      // The shared watcher wakes the feed for revocations of other processes (one read for all polls), and
      // the polls count against the project's cap like the inbox's.
      waiters.watch(watchedStorage(storage), recheckMs);
      const release = query.wait > 0 ? waiters.admit(caller.projectId, null) : undefined;
      let found: { rows: Revocation[]; waited: boolean };
      try {
        // Only a poll that passed SDK auth and was admitted gets here: the app instance it names is recorded
        // (throttled). A feed poll is a read: a record that cannot be written (a full disk, a locked database) is
        // logged and the feed is served all the same.
        await deps.apps.seen(caller.projectId, req.headers, query.after).catch((error) => {
          deps.log("Recording a connected app's feed poll failed", error);
        });
        // A reroll's grace that has ended is written as a revocation (reason `reroll`) before the feed is read, and
        // a poll that would wait past the next one answers then (empty), so the next poll writes and carries it.
        // When that write fails the feed is still served, and the poll answers within a second so the next one tries
        // the write again.
        const { next } = await keys.writeDueRevocations(caller.projectId).catch((error) => {
          deps.log("Writing a reroll's due revocation failed", error);
          return { next: keys.now() + DUE_WRITE_RETRY_MS };
        });
        const now = keys.now();
        const due = next === null ? Infinity : Math.max(next, now);
        found = await readOrWait(
          () => keys.subscribe(caller.projectId),
          () => keys.revocations(caller.projectId, query.after, query.limit),
          {
            deadline: Math.min(now + query.wait * 1000, due),
            now: keys.now,
            signal: req.signal,
            closing: deps.closing,
          },
        );
      } finally {
        release?.();
      }
      const { rows: revocations, waited } = found;
      // A secret rotated while the poll waited: the old one gets nothing more.
      if (waited) await reauthenticate(req, "sdk", caller.projectId, storage);
      const nextSeq = revocations.length > 0 ? revocations[revocations.length - 1].seq : query.after;
      return json({ revocations, nextSeq });
    },
  }),
];
