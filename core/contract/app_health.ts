/**
 * The answer of an app's `GET /svc/health`: whether its agent routes serve, its mode, and the state of its link to
 * the cloud, for a load balancer, a smoke test or an alert. No credentials are needed, and it holds no secret.
 *
 * @module
 */
import { z } from "zod";

/**
 * The state of an app's link to its cloud: `following` (the revocation feed is read up to date), `connecting` (the
 * first poll is in flight, or the link was lost within the staleness bound, or the feed is catching up),
 * `never_connected` (no poll has completed since start and one has failed), `stale` (the last completed poll began
 * longer ago than `cloud.maxRevocationLagMs`), `refused` (the cloud refuses the app's sdkSecret or projectId).
 */
export type CloudLinkState = "following" | "connecting" | "never_connected" | "stale" | "refused";

/** The answer of `GET /svc/health` (`200`, or `503` when `ok` is `false`). */
export const appHealthSchema = z.object({
  ok: z.boolean().describe(
    "false (and status 503) while the agent routes refuse: REVOCATION_FEED_STALE or CLOUD_CREDENTIALS_REFUSED",
  ),
  mode: z.enum(["local", "hybrid", "cloud"]),
  cloud: z.enum(["following", "connecting", "never_connected", "stale", "refused"] satisfies CloudLinkState[])
    .nullable()
    .describe("The link to the cloud; null in local mode, which has none"),
});

/** What `GET /svc/health` answers. */
export type AppHealth = z.infer<typeof appHealthSchema>;
