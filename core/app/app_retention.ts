/**
 * How long the app keeps what it records: violations and activity records older than
 * their retention are deleted, the outbox is purged of set-aside and surplus
 * violation reports, and OAuth clients registered a day ago that never
 * completed an authorization are deleted, once at start and then every interval, in the
 * background (requests never wait for it; deletes run in short chunks). The
 * outbox is purged here only: not when it starts, nor after a failed send.
 *
 * @module
 */
import { DEFAULT_VIOLATION_RETENTION_MS } from "../contract/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { AppStorage } from "./storage/mod.ts";
import type { Outbox } from "../cloud_link/mod.ts";
import { MAX_PURGE_INTERVAL_MS, type PurgeSchedule, schedulePurge } from "../db/mod.ts";
import { OAUTH_DEFAULTS, type OAuthStorage } from "../oauth/mod.ts";
import { PLATFORM } from "../platform/mod.ts";
import type { Approvals } from "../approvals/mod.ts";

/** Options of {@linkcode startRetention}. */
export interface RetentionOptions {
  /** The app's storage. */
  storage: AppStorage;
  /** The outbox to purge too (hybrid and cloud modes). */
  outbox?: Outbox;
  /** The OAuth server's storage, whose unused registered clients expire (when the app serves OAuth). */
  oauth?: Pick<OAuthStorage, "purgeUnusedClients">;
  /** The approvals: expired when nobody decided in time, deleted after the retention once ended. */
  approvals?: Pick<Approvals, "purge">;
  /** How long violations are kept, in milliseconds. Default {@linkcode DEFAULT_VIOLATION_RETENTION_MS}. */
  violationRetentionMs?: number;
  /** How long activity records are kept, in milliseconds (absent: none are kept here). */
  activityRetentionMs?: number;
  /** How often to purge, in milliseconds. Default: the retention, at most an hour. */
  purgeIntervalMs?: number;
  /** Where failures go. */
  log: ErrorLogger;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/**
 * Purges at once, then every interval.
 *
 * @param options Storage, outbox, retention, interval, logger and clock.
 * @returns The running schedule: `purge()` now, `close()` to stop.
 */
export function startRetention(options: RetentionOptions): PurgeSchedule {
  const { storage, outbox, oauth, log } = options;
  const retentionMs = options.violationRetentionMs ?? DEFAULT_VIOLATION_RETENTION_MS;
  const now = options.now ?? PLATFORM.now;
  async function purge(): Promise<void> {
    try {
      await storage.purgeViolations(new Date(now() - retentionMs).toISOString());
    } catch (error) {
      log("purging old violations failed", error);
    }
    if (options.activityRetentionMs !== undefined) {
      try {
        await storage.purgeActivity(now() - options.activityRetentionMs);
      } catch (error) {
        log("purging old activity records failed", error);
      }
    }
    await outbox?.purge(); // logs its own failures
    try {
      await oauth?.purgeUnusedClients(new Date(now() - OAUTH_DEFAULTS.unusedClientTtlMs).toISOString());
    } catch (error) {
      log("purging unused OAuth clients failed", error);
    }
    try {
      await options.approvals?.purge(retentionMs);
    } catch (error) {
      log("purging approvals failed", error);
    }
  }
  return schedulePurge(purge, options.purgeIntervalMs ?? Math.min(retentionMs, MAX_PURGE_INTERVAL_MS));
}
