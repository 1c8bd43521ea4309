/**
 * Following the cloud's revocation feed (hybrid and cloud modes): one long
 * poll per process on `GET /v1/sdk/keys/revocations`. Each page is applied
 * to the app's key store in one write together with the cursor, so a restart
 * resumes after the last applied revocation; cloud mode also drops the cached
 * verifications of the revoked keys. While the cloud cannot be reached the
 * follower backs off, says so in the log once, and reports its lag.
 *
 * @module
 */
import type { CloudClient } from "./cloud_client.ts";
import type { AppStorage } from "../storage/mod.ts";
import { type ErrorLogger, reconnectedAfter } from "../../logging/mod.ts";
import { Backoff } from "../../retry/mod.ts";
import { isSvcError } from "../../errors/mod.ts";
import type { Revocation } from "../../contract/mod.ts";

/** How the feed is followed, for `svc.health()`. */
export interface RevocationFeedHealth {
  /** `true` while a long poll is open on the cloud and the last answer was a success. */
  connected: boolean;
  /** The last seq applied. */
  cursor: number;
  /** ISO 8601 of the cloud's last answer, or `null` before the first. */
  lastSyncAt: string | null;
  /**
   * How long revocations may have gone unseen, in milliseconds: 0 while connected, else the time
   * since the last answer (or since the follower started). Alert on it.
   */
  lagMs: number;
}

/** Options of {@linkcode followRevocations}. */
export interface RevocationFollowerOptions {
  /** The cloud. */
  cloud: CloudClient;
  /** Where revocations and the cursor are written. */
  storage: AppStorage;
  /** Called after a page was applied (cloud mode drops cached verifications). */
  onRevoked?: (revocations: readonly Revocation[]) => void;
  /** Where an outage is logged, once. */
  log: ErrorLogger;
  /** First retry delay in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay in milliseconds. Default 30000. */
  retryMaxMs?: number;
  /** Seconds each long poll is held open by the cloud. Default 20. */
  waitSeconds?: number;
  /** The clock of the lag and of the refused-credentials log, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** How often a refused sdkSecret is logged while it lasts: once a minute. */
export const REFUSED_CREDENTIALS_LOG_MS = 60_000;

/** What the log says while the cloud refuses the app's credentials: what happened and what the operator does. */
export const REFUSED_CREDENTIALS_MESSAGE =
  "THE CLOUD REFUSED THIS APP'S CREDENTIALS (cloud.sdkSecret rotated, or the project deleted): revocations cannot be heard, " +
  "so /svc/agent/run, /svc/mcp and /svc/agent/intents answer 503 CLOUD_CREDENTIALS_REFUSED. Set the project's new " +
  "sdkSecret (the dashboard's Settings, or `project rotate`) in the app's secret storage and redeploy, or give " +
  "cloud.sdkSecret as a function that reads it; the app serves again at its next poll";

/** A running follower. */
export interface RevocationFollower {
  /** Its state now. */
  health(): RevocationFeedHealth;
  /** Settles once the feed has been read up to date once since start (or the follower closed). */
  caughtUp: Promise<void>;
  /** Ends the long poll. */
  close(): Promise<void>;
}

const PAGE = 200;

/**
 * Starts following the feed from the stored cursor.
 *
 * @param options The cloud, storage, hook, logger and delays.
 * @returns The follower.
 */
export function followRevocations(options: RevocationFollowerOptions): RevocationFollower {
  const { cloud, storage, log } = options;
  const backoff = new Backoff({ minMs: options.retryMinMs ?? 500, maxMs: options.retryMaxMs ?? 30_000 });
  const wait = options.waitSeconds ?? 20;
  const stop = new AbortController();
  const now = options.now ?? Date.now;
  const startedAt = now();
  let refusedLoggedAt: number | null = null;
  let cursor = 0;
  let connected = false;
  let lastSyncAt: number | null = null;
  let markCaughtUp: () => void = () => {};
  const caughtUp = new Promise<void>((resolve) => markCaughtUp = resolve);

  async function run(): Promise<void> {
    let reported = false;
    let downSince = 0;
    try {
      cursor = await storage.revocationCursor();
    } catch (error) {
      log("the revocation feed's cursor could not be read; following from the start", error);
    }
    while (!stop.signal.aborted) {
      try {
        // Catch up without waiting; once up to date, hold a long poll open.
        const waitSeconds = connected ? wait : 0;
        const page = await cloud.revocations(cursor, { limit: PAGE, waitSeconds, signal: stop.signal });
        if (page.revocations.length > 0) {
          await storage.applyRevocations(page.revocations, page.nextSeq);
          options.onRevoked?.(page.revocations);
        }
        cursor = page.nextSeq;
        lastSyncAt = now();
        refusedLoggedAt = null;
        backoff.reset();
        if (reported) {
          log(`the revocation feed is reachable again: ${reconnectedAfter(now() - downSince)}`, undefined);
        }
        reported = false;
        connected = page.revocations.length < PAGE;
        if (connected) markCaughtUp();
      } catch (error) {
        connected = false;
        if (stop.signal.aborted) break;
        if (isSvcError(error) && error.code === "CLOUD_CREDENTIALS_REFUSED") {
          if (refusedLoggedAt === null || now() - refusedLoggedAt >= REFUSED_CREDENTIALS_LOG_MS) {
            refusedLoggedAt = now();
            log(REFUSED_CREDENTIALS_MESSAGE, error);
          }
        } else if (!reported) log("the revocation feed cannot be followed; retrying in the background", error);
        if (!reported) downSince = now();
        reported = true;
        await backoff.wait(stop.signal);
      }
    }
  }

  const running = run();
  return {
    health() {
      const since = lastSyncAt ?? startedAt;
      return {
        connected,
        cursor,
        lastSyncAt: lastSyncAt === null ? null : new Date(lastSyncAt).toISOString(),
        lagMs: connected ? 0 : now() - since,
      };
    },
    caughtUp,
    async close() {
      stop.abort();
      markCaughtUp();
      await running;
    },
  };
}
