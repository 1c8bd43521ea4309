/**
 * What keeps a hybrid or cloud-mode app from serving keys it cannot know are still valid, and what makes a broken
 * cloud link loud. While the cloud refuses the app's sdkSecret, or (hybrid) while the last feed poll that completed
 * began longer ago than `cloud.maxRevocationLagMs`, the agent routes answer `503` with `Retry-After`; they serve again
 * as soon as the credentials work or a poll completes. While the credentials are refused no key is minted. The guard
 * names the link's state for `GET /svc/health` (`following`, `connecting`, `never_connected`, `stale`, `refused`),
 * logs the moment it starts refusing for staleness and the moment it stops, and, while the app has never reached its
 * cloud, logs an error naming the endpoint and the fix every 30 s. Also how this app instance names itself on its
 * feed polls.
 *
 * @module
 */
import { isSvcError, SvcError } from "../errors/mod.ts";
import { type ErrorLogger, expectedFailure } from "../logging/mod.ts";
import { sleep } from "../retry/mod.ts";
import type { CloudLinkState } from "../contract/mod.ts";
import type { CloudClient, RevocationFollower } from "../cloud_link/mod.ts";

/** `cloud.maxRevocationLagMs` when not given: 10 minutes. */
export const DEFAULT_MAX_REVOCATION_LAG_MS = 600_000;
/** How often an app that has never reached its cloud says so: every 30 s. */
export const NEVER_CONNECTED_LOG_MS = 30_000;
/** How often the guard looks at the link when no request asks, in milliseconds. */
export const CLOUD_WATCH_MS = 1000;
/** The `Retry-After` of both refusals, in seconds. */
const RETRY_AFTER_SECONDS = "5";

/** What the guard looks at. */
export interface CloudGuardOptions {
  /** The cloud client, which knows whether the cloud refuses the credentials. */
  cloud: CloudClient;
  /** The feed follower, whose lag bounds the staleness (hybrid mode). */
  follower: RevocationFollower;
  /** The longest lag served, in milliseconds, or `false` for no bound (cloud mode: `false`). */
  maxLagMs: number | false;
  /** `cloud.endpoint`, named in the log lines (without any user or password in it). */
  endpoint: string;
  /** Where the link's changes are logged. */
  log: ErrorLogger;
  /** The clock, in milliseconds since the epoch. */
  now: () => number;
}

/** The link as `GET /svc/health` reports it: `ok` is `false` while the agent routes refuse. */
export interface CloudLinkHealth {
  /** Whether the agent routes serve. */
  ok: boolean;
  /** The cloud link's state. */
  cloud: CloudLinkState;
}

/** A running guard. */
export interface CloudGuard {
  /** The check an agent route makes first: throws the `503` while revocations cannot be heard. */
  check(): void;
  /** The check before a key is minted: throws `503 CLOUD_CREDENTIALS_REFUSED` while the cloud refuses the app. */
  checkCredentials(): void;
  /** The link now. */
  health(): CloudLinkHealth;
  /** Stops looking. */
  close(): Promise<void>;
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
 * A cloud endpoint as the log names it: without a user, a password, a query or a fragment.
 *
 * @param endpoint `cloud.endpoint`.
 * @returns Its origin and path.
 */
export function shownEndpoint(endpoint: string): string {
  try {
    const url = new URL(endpoint);
    return url.origin + url.pathname.replace(/\/+$/, "");
  } catch {
    return "(cloud.endpoint is not a URL)";
  }
}

/** The `503` of refused credentials, for an agent route or a mint. */
function refusedCredentials(what: string): SvcError {
  return new SvcError("CLOUD_CREDENTIALS_REFUSED", `${what}: the cloud refuses its credentials. Try again later`, {
    headers: { "retry-after": RETRY_AFTER_SECONDS },
  });
}

/**
 * Starts guarding: a look at the link every {@linkcode CLOUD_WATCH_MS}, and at each check.
 *
 * @param options The client, the follower, the bound, the endpoint, the log and the clock.
 * @returns The guard.
 */
export function startCloudGuard(options: CloudGuardOptions): CloudGuard {
  const { cloud, follower, maxLagMs, log, now } = options;
  const endpoint = shownEndpoint(options.endpoint);
  const iso = (ms: number) => new Date(ms).toISOString();
  let staleSince: number | null = null;
  let neverConnectedLoggedAt: number | null = null;

  /** Looks at the link; logs a change of staleness and, while never connected, the error every 30 s. */
  function look(): { refused: boolean; neverConnected: boolean; stale: boolean; lagMs: number } {
    const at = now();
    const heard = follower.heardAt();
    const lagMs = Math.max(0, at - (heard ?? follower.startedAt));
    const refused = cloud.refusedSince() !== null;
    const stale = maxLagMs !== false && lagMs > maxLagMs;
    const failure = follower.failure();
    const neverConnected = heard === null && failure !== undefined;
    if (stale && staleSince === null) {
      staleSince = (heard ?? follower.startedAt) + maxLagMs;
      log(
        `REVOCATION_FEED_STALE since ${iso(staleSince)}, last heard ${heard === null ? "never" : iso(heard)}, ` +
          `cloud ${endpoint}: no poll of the revocation feed completed within cloud.maxRevocationLagMs ` +
          `(${maxLagMs} ms), so /svc/agent/run, /svc/mcp and /svc/agent/intents answer 503 until one does`,
        failure,
      );
    } else if (!stale && staleSince !== null) {
      log(
        `REVOCATION_FEED_STALE over: a poll of the revocation feed completed (started ${iso(heard ?? at)}), cloud ` +
          `${endpoint}; the agent routes serve again after ${Math.round((at - staleSince) / 1000)} s of 503s`,
        undefined,
      );
      staleSince = null;
    }
    if (!neverConnected) neverConnectedLoggedAt = null;
    else if (neverConnectedLoggedAt === null || at - neverConnectedLoggedAt >= NEVER_CONNECTED_LOG_MS) {
      neverConnectedLoggedAt = at;
      const then = maxLagMs === false
        ? "its agent keys cannot be verified"
        : `its agent routes answer 503 REVOCATION_FEED_STALE once cloud.maxRevocationLagMs (${maxLagMs} ms) has ` +
          "passed since it started";
      log(
        `THIS APP HAS NEVER REACHED ITS CLOUD at ${endpoint} (started ${Math.round((at - follower.startedAt) / 1000)}` +
          ` s ago): it cannot hear revocations, and ${then}. Fix cloud.endpoint if it is mistyped (the cloud's base ` +
          "URL, such as https://svc.example.com), or make the cloud reachable from this host; GET /svc/health says " +
          '"never_connected" until it is',
        failure,
      );
    }
    return { refused, neverConnected, stale, lagMs };
  }

  const stop = new AbortController();
  const watching = (async () => {
    while (!stop.signal.aborted) {
      try {
        look();
      } catch {
        // a logger that throws: looked at again next time
      }
      await sleep(CLOUD_WATCH_MS, stop.signal);
    }
  })();

  return {
    check() {
      const { refused, stale, lagMs } = look();
      if (refused) throw refusedCredentials("This app cannot hear revocations");
      if (stale) {
        throw new SvcError(
          "REVOCATION_FEED_STALE",
          "This app has not heard the cloud's revocations for too long. Try again later",
          { headers: { "retry-after": RETRY_AFTER_SECONDS }, details: { lagMs, maxRevocationLagMs: maxLagMs } },
        );
      }
    },
    checkCredentials() {
      if (cloud.refusedSince() !== null) throw refusedCredentials("This app cannot mint keys");
    },
    health() {
      const { refused, neverConnected, stale } = look();
      const state: CloudLinkState = refused
        ? "refused"
        : neverConnected
        ? "never_connected"
        : stale
        ? "stale"
        : follower.health().connected
        ? "following"
        : "connecting";
      return { ok: !refused && !stale, cloud: state };
    },
    async close() {
      stop.abort();
      await watching;
    },
  };
}

/**
 * Why `ready` rejects under `cloud.requireAtStart`: the first poll of the feed failed.
 *
 * @param endpoint `cloud.endpoint`.
 * @param failure What the first poll threw.
 * @returns The error, naming the endpoint and the fix.
 */
export function cloudAtStartError(endpoint: string, failure: unknown): Error {
  const shown = shownEndpoint(endpoint);
  const refused = isSvcError(failure) && failure.code === "CLOUD_CREDENTIALS_REFUSED";
  const reason = expectedFailure(failure) ?? (failure instanceof Error ? failure.message : String(failure));
  const message = refused
    ? `createSvc: cloud.requireAtStart: the cloud at ${shown} refused this app's credentials: set cloud.projectId ` +
      "and cloud.sdkSecret to the project's current values (the dashboard's Settings, or `svc-cloud project rotate-secret`)"
    : `createSvc: cloud.requireAtStart: the cloud at ${shown} could not be reached (${reason}): check cloud.endpoint ` +
      "(the cloud's base URL, such as https://svc.example.com) and that the cloud is running and reachable from here";
  return new Error(message, { cause: failure });
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
