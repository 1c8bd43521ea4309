/**
 * Following the cloud's revocation feed (hybrid and cloud modes): one long
 * poll per process on `GET /v1/sdk/keys/revocations`. Each page is applied
 * to the app's key store in one write together with the cursor, so a restart
 * resumes after the last applied revocation; cloud mode also drops the cached
 * verifications of the revoked keys. While the cloud cannot be reached the
 * follower retries about once a second (a cloud that is back is heard within 2 s), says so in the log once, and
 * reports its lag: the time since the START of the last poll that completed, so a poll that hangs never counts as
 * heard.
 *
 * @module
 */
import type { CloudClient } from "./cloud_client.ts";
import type { AppStorage } from "../app/storage/mod.ts";
import { type ErrorLogger, reconnectedAfter } from "../logging/mod.ts";
import { Backoff, type Sleep, sleep } from "../retry/mod.ts";
import { isSvcError } from "../errors/mod.ts";
import type { Revocation } from "../contract/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** How the feed is followed, for `svc.health()`. */
export interface RevocationFeedHealth {
  /** `true` while the feed is read up to date: the last poll completed and more are being held open. */
  connected: boolean;
  /** The last seq applied. */
  cursor: number;
  /** ISO 8601 of the cloud's last answer, or `null` before the first. */
  lastSyncAt: string | null;
  /** ISO 8601 of the start of the last poll that completed, or `null` before the first: what the app has heard. */
  lastHeardAt: string | null;
  /**
   * How long revocations may have gone unseen, in milliseconds: the time since the start of the last poll that
   * completed (or since the follower started). A poll in flight, stalled or slow, never counts; while the feed is
   * followed it stays below about twice the long poll's hold (the previous poll and the one in flight). Alert on it.
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
  /** First retry delay in milliseconds, at most {@linkcode FEED_RETRY_MAX_MS}. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay in milliseconds, at most {@linkcode FEED_RETRY_MAX_MS} (the default). */
  retryMaxMs?: number;
  /** Seconds each long poll is held open by the cloud, at most a quarter of `maxLagMs`. Default 20. */
  waitSeconds?: number;
  /** The staleness bound the app keeps (`cloud.maxRevocationLagMs`): a long poll is held a quarter of it at most. */
  maxLagMs?: number | false;
  /**
   * How long past its hold a poll's answer may take, in milliseconds, before the poll is given up and tried again
   * (an answer lost on the way never arrives). Default {@linkcode FEED_ANSWER_GRACE_MS}, at most `cloud.timeoutMs`;
   * until a first poll has completed, `cloud.timeoutMs`.
   */
  answerGraceMs?: number;
  /** The clock of the lag and of the refused-credentials log, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** How the retry delays are waited. Default {@linkcode sleep}. */
  sleep?: Sleep;
}

/** The feed's longest retry delay, before jitter (0.5 to 1.5 times): a cloud that is back is heard within 2 s. */
export const FEED_RETRY_MAX_MS = 1000;
/** How long past its hold a feed poll's answer may take before the poll is tried again. */
export const FEED_ANSWER_GRACE_MS = 1000;

/** How often a refused sdkSecret is logged while it lasts: once a minute. */
export const REFUSED_CREDENTIALS_LOG_MS = 60_000;

/** What the log says while the cloud refuses the app's credentials: what happened and what the operator does. */
export const REFUSED_CREDENTIALS_MESSAGE =
  "THE CLOUD REFUSED THIS APP'S CREDENTIALS (cloud.sdkSecret rotated, or the project deleted): revocations cannot be heard, " +
  "so /svc/agent/run, /svc/mcp and /svc/agent/intents answer 503 CLOUD_CREDENTIALS_REFUSED. Set the project's new " +
  "sdkSecret (the dashboard's Settings, or `svc-cloud project rotate-secret`) in the app's secret storage and redeploy, or give " +
  "cloud.sdkSecret as a function that reads it; the app serves again at its next poll";

/** A running follower. */
export interface RevocationFollower {
  /** Its state now. */
  health(): RevocationFeedHealth;
  /** When the last completed poll started (ms since the epoch), or `null` before the first. */
  heardAt(): number | null;
  /** When the follower started (ms since the epoch): the lag of a feed never heard counts from it. */
  readonly startedAt: number;
  /** What the last poll threw while no poll has completed since, else `undefined`. */
  failure(): unknown;
  /** Settles once the feed has been read up to date once since start (or the follower closed). */
  caughtUp: Promise<void>;
  /** The first poll's outcome: `undefined` when it completed, else what it threw (it never rejects). */
  firstPoll: Promise<unknown>;
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
  const maxMs = Math.min(options.retryMaxMs ?? FEED_RETRY_MAX_MS, FEED_RETRY_MAX_MS);
  const backoff = new Backoff({ minMs: Math.min(options.retryMinMs ?? 500, maxMs), maxMs });
  const bound = options.maxLagMs ?? false;
  // A poll counts from its start, so a healthy feed's lag reaches the previous poll's hold plus the current one's:
  // held a quarter of the bound at most, that stays near half the bound.
  const wait = Math.min(options.waitSeconds ?? 20, bound === false ? Infinity : Math.floor(bound / 4) / 1000);
  const graceMs = options.answerGraceMs ?? FEED_ANSWER_GRACE_MS;
  const pause = options.sleep ?? sleep;
  const stop = new AbortController();
  const now = options.now ?? PLATFORM.now;
  const startedAt = now();
  let refusedLoggedAt: number | null = null;
  let cursor = 0;
  let connected = false;
  let lastSyncAt: number | null = null;
  let heardAt: number | null = null;
  let failure: unknown = undefined;
  let markCaughtUp: () => void = () => {};
  const caughtUp = new Promise<void>((resolve) => markCaughtUp = resolve);
  let markFirstPoll: (outcome: unknown) => void = () => {};
  const firstPoll = new Promise<unknown>((resolve) => markFirstPoll = resolve);

  async function run(): Promise<void> {
    let reported = false;
    let downSince = 0;
    try {
      cursor = await storage.revocationCursor();
    } catch (error) {
      log("the revocation feed's cursor could not be read; following from the start", error);
    }
    while (!stop.signal.aborted) {
      const pollStartedAt = now();
      try {
        // Catch up without waiting; once up to date, hold a long poll open.
        const waitSeconds = connected ? wait : 0;
        // Until the cloud has answered once, nothing says how slow it is: the client's whole timeout.
        const answerWithin = heardAt === null ? undefined : graceMs;
        const page = await cloud.revocations(cursor, {
          limit: PAGE,
          waitSeconds,
          graceMs: answerWithin,
          signal: stop.signal,
        });
        if (page.revocations.length > 0) {
          await storage.applyRevocations(page.revocations, page.nextSeq);
          options.onRevoked?.(page.revocations);
        }
        cursor = page.nextSeq;
        lastSyncAt = now();
        heardAt = pollStartedAt;
        failure = undefined;
        markFirstPoll(undefined);
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
        failure = error;
        markFirstPoll(error);
        if (isSvcError(error) && error.code === "CLOUD_CREDENTIALS_REFUSED") {
          if (refusedLoggedAt === null || now() - refusedLoggedAt >= REFUSED_CREDENTIALS_LOG_MS) {
            refusedLoggedAt = now();
            log(REFUSED_CREDENTIALS_MESSAGE, error);
          }
        } else if (!reported) log("the revocation feed cannot be followed; retrying in the background", error);
        if (!reported) downSince = now();
        reported = true;
        await pause(backoff.next(), stop.signal);
      }
    }
  }

  const running = run();
  return {
    health() {
      return {
        connected,
        cursor,
        lastSyncAt: lastSyncAt === null ? null : new Date(lastSyncAt).toISOString(),
        lastHeardAt: heardAt === null ? null : new Date(heardAt).toISOString(),
        lagMs: Math.max(0, now() - (heardAt ?? startedAt)),
      };
    },
    heardAt: () => heardAt,
    startedAt,
    failure: () => failure,
    caughtUp,
    firstPoll,
    async close() {
      stop.abort();
      markCaughtUp();
      markFirstPoll(undefined);
      await running;
    },
  };
}
