/**
 * How long the app keeps what it records: violations older than the
 * retention are deleted, and the outbox is purged of set-aside and surplus
 * violation reports, once at start and then every interval, in the
 * background (requests never wait for it; deletes run in short chunks).
 *
 * @module
 */
import { DEFAULT_VIOLATION_RETENTION_MS } from "../contract/violation.ts";
import type { ErrorLogger } from "../http/json.ts";
import type { AppStorage } from "./app_storage.ts";
import type { Outbox } from "./outbox.ts";

/** The longest time between two purges, by default: an hour. */
const MAX_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Options of {@linkcode startRetention}. */
export interface RetentionOptions {
  /** The app's storage. */
  storage: AppStorage;
  /** The outbox to purge too (hybrid and cloud modes). */
  outbox?: Outbox;
  /** How long violations are kept, in milliseconds. Default {@linkcode DEFAULT_VIOLATION_RETENTION_MS}. */
  violationRetentionMs?: number;
  /** How often to purge, in milliseconds. Default: the retention, at most an hour. */
  purgeIntervalMs?: number;
  /** Where failures go. */
  log: ErrorLogger;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The running retention. */
export interface Retention {
  /** Purges now (or joins the purge under way). */
  purge(): Promise<void>;
  /** Stops the timer and waits for a purge under way. */
  close(): Promise<void>;
}

/**
 * Purges at once, then every interval.
 *
 * @param options Storage, outbox, retention, interval, logger and clock.
 * @returns The retention.
 */
export function startRetention(options: RetentionOptions): Retention {
  const { storage, outbox, log } = options;
  const retentionMs = options.violationRetentionMs ?? DEFAULT_VIOLATION_RETENTION_MS;
  const now = options.now ?? Date.now;
  let running: Promise<void> | undefined;

  function purge(): Promise<void> {
    running ??= (async () => {
      try {
        await storage.purgeViolations(new Date(now() - retentionMs).toISOString());
      } catch (error) {
        log("purging old violations failed", error);
      }
      await outbox?.purge(); // logs its own failures
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  const timer = setInterval(purge, options.purgeIntervalMs ?? Math.min(retentionMs, MAX_PURGE_INTERVAL_MS));
  // Where timers can be unreferenced (Node, Bun), this one alone does not keep the process running; `close()` stops it.
  (timer as { unref?: () => void }).unref?.();
  purge();
  return {
    purge,
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
