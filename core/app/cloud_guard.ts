/**
 * What keeps a hybrid or cloud-mode app from serving keys it cannot know are still valid: while the
 * cloud refuses the app's sdkSecret, or (hybrid) while the revocation feed has not been read for longer
 * than `cloud.maxRevocationLagMs`, the agent routes answer `503` with `Retry-After`; they serve again at
 * once when the credentials work or the feed is caught up. Also how this app instance names itself on
 * its feed polls.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import type { CloudClient, RevocationFollower } from "./cloud_link/mod.ts";

/** `cloud.maxRevocationLagMs` when not given: 10 minutes. */
export const DEFAULT_MAX_REVOCATION_LAG_MS = 600_000;
/** The `Retry-After` of both refusals, in seconds. */
const RETRY_AFTER_SECONDS = "5";

/** What the guard looks at. */
export interface RevocationGuardOptions {
  /** The cloud client, which knows whether the cloud refuses the credentials. */
  cloud: CloudClient;
  /** The feed follower, whose lag bounds the staleness (hybrid mode). */
  follower: RevocationFollower | undefined;
  /** The longest lag served, in milliseconds, or `false` for no bound (cloud mode: `false`). */
  maxLagMs: number | false;
}

/**
 * Whether the cloud refuses this app's credentials, in the words `svc.health()` uses.
 *
 * @param cloud The client.
 * @returns `refused` while the cloud answers `401`, else `ok`.
 */
export function credentialsState(cloud: CloudClient): "ok" | "refused" {
  return cloud.refusedSince() === null ? "ok" : "refused";
}

/**
 * The check an agent route makes first: throws the `503` while revocations cannot be heard.
 *
 * @param options The client, the follower and the bound.
 * @returns The check.
 */
export function revocationGuard(options: RevocationGuardOptions): () => void {
  const { cloud, follower, maxLagMs } = options;
  return () => {
    if (cloud.refusedSince() !== null) {
      throw new SvcError(
        "CLOUD_CREDENTIALS_REFUSED",
        "This app cannot hear revocations: the cloud refuses its credentials. Try again later",
        { headers: { "retry-after": RETRY_AFTER_SECONDS } },
      );
    }
    if (maxLagMs === false || follower === undefined) return;
    const { lagMs } = follower.health();
    if (lagMs > maxLagMs) {
      throw new SvcError(
        "REVOCATION_FEED_STALE",
        "This app has not heard the cloud's revocations for too long. Try again later",
        { headers: { "retry-after": RETRY_AFTER_SECONDS }, details: { lagMs, maxRevocationLagMs: maxLagMs } },
      );
    }
  };
}

/**
 * The label this app instance sends on its feed polls: `cloud.label`, else the host's name when the
 * runtime tells it, else `app`; at most 100 characters.
 *
 * @param label The configured one.
 * @returns The label.
 */
export function appLabel(label: string | undefined): string {
  if (label !== undefined && label.length > 0) return label.slice(0, 100);
  const runtime = globalThis as { Deno?: { hostname?: () => string }; process?: { env?: Record<string, string> } };
  let host: string | undefined;
  try {
    host = runtime.Deno?.hostname?.() ?? runtime.process?.env?.HOSTNAME;
  } catch {
    host = undefined; // no permission to read it
  }
  return (host !== undefined && host.length > 0 ? host : "app").slice(0, 100);
}
