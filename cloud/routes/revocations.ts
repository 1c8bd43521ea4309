/**
 * `GET /v1/sdk/keys/revocations`: the project's revocation feed, which
 * hybrid and cloud-mode apps follow with one long poll each, and the wake-up
 * that a revocation in this process sends to the polls waiting on it.
 *
 * @module
 */
import { z } from "zod";
import { type Revocation, revocationPageSchema } from "../../core/contract/revocation.ts";
import { pageSize, queryInteger, waitSeconds } from "../../core/contract/wire_values.ts";
import { json } from "../../core/http/json.ts";
import { type CloudDeps, defineRoute } from "./cloud_side.ts";
import { recheckCredential } from "./credential_recheck.ts";

/**
 * The wake-up channel of a project's feed, on the inbox waiters: an agentId
 * can never be this (stored text holds no NUL).
 */
const FEED_CHANNEL = "\u0000revocations";

/** The query of the feed. */
export const revocationsQuery = z.object({
  after: queryInteger().default(0).describe("Revocations after this seq; 0 to start"),
  limit: pageSize(1),
  wait: waitSeconds,
});

/**
 * Wakes the feed polls of a project waiting in this process (other processes
 * find the revocation at their next re-check).
 *
 * @param deps The cloud's services.
 * @param projectId The project whose key was revoked.
 */
export function notifyRevocation(deps: CloudDeps, projectId: string): void {
  deps.waiters.notify(projectId, FEED_CHANNEL);
}

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
      const { storage, waiters, recheckMs } = deps;
      const deadline = Date.now() + query.wait * 1000;
      let revocations: Revocation[];
      let waited = false;
      for (;;) {
        // Subscribe before reading, so a revocation stored in between still wakes us.
        const subscription = waiters.subscribe(caller.projectId, FEED_CHANNEL);
        try {
          revocations = await storage.listRevocations(caller.projectId, query.after, query.limit);
          const left = deadline - Date.now();
          if (revocations.length > 0 || left <= 0 || req.signal.aborted || deps.closing()) break;
          await subscription.wait(Math.min(left, recheckMs), req.signal);
          waited = true;
        } finally {
          subscription.cancel();
        }
      }
      // A secret rotated while the poll waited: the old one gets nothing more.
      if (waited) await recheckCredential(req, "sdk", caller.projectId, storage);
      const nextSeq = revocations.length > 0 ? revocations[revocations.length - 1].seq : query.after;
      return json({ revocations, nextSeq });
    },
  }),
];
