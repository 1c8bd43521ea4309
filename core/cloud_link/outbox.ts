/**
 * The durable outbox of hybrid and cloud modes: key records, violations and
 * activity records are queued in the app's storage in the same write that
 * stores them, and sent to the cloud, retrying with backoff while the cloud is
 * down. Items survive a restart of the app. Each carries an id minted at the
 * app (a violation's `reportId`, an activity record's `act_` id, a key record's
 * key id, an approval step's approvalId and status), so the cloud stores a retried item once. Violations and activity
 * records go in batches of one kind (`POST /v1/sdk/violations/batch`,
 * `POST /v1/sdk/activity/batch`) and count together toward `limit`.
 *
 * Nothing an agent sends can hold back a key record: key records (mint,
 * revoke) go first, in order, and violations and approval steps after them, in batches of one kind. A
 * transient failure (the network, a timeout, 408, 429, 5xx, refused
 * credentials) never sets an item aside: it waits and is retried, with backoff
 * capped at `retryMaxMs` (30 s), for as long as it takes. Only a refusal no
 * retry can change (any other 4xx) sets an item aside, with the reason: it is
 * kept, never sent again, logged, and counted by `setAside()` (which
 * `svc.health()` and `svc.sync()` report).
 *
 * Nothing grows without bound: set-aside violation reports are deleted
 * `setAsideRetentionMs` after they were made (7 days), and past `limit`
 * violation reports (10,000) the oldest are dropped, set-aside ones first; each
 * deletion is logged with its count. Both happen in `purge()`, which the app's
 * retention calls at start and then hourly (`purgeIntervalMs`): not after each
 * failed send, which would count the reports on every retry, so between two
 * purges the outbox may hold more than `limit` reports, by as many as were
 * recorded meanwhile. Key records are never deleted unsent: one the cloud
 * refuses for good is set aside, and that is logged with the key's id.
 *
 * @module
 */
import { type CloudClient, isTransient, type KeyReroll } from "./cloud_client.ts";
import { type ErrorLogger, reconnectedAfter } from "../logging/mod.ts";
import type { AppStorage, OutboxItem } from "../app/storage/mod.ts";
import { Backoff } from "../retry/mod.ts";
import { VIOLATION_BATCH_LIMIT } from "../contract/mod.ts";
import { isSvcError } from "../errors/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Options of {@linkcode createOutbox}. */
export interface OutboxOptions {
  /** Where items are queued. */
  storage: AppStorage;
  /** Where they go. */
  cloud: CloudClient;
  /** Where failures are logged. */
  log: ErrorLogger;
  /** First retry delay in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay in milliseconds, jitter included. Default 30000. */
  retryMaxMs?: number;
  /** How long a set-aside violation report is kept, in milliseconds from when it was made. Default 7 days. */
  setAsideRetentionMs?: number;
  /** The most violation reports kept, waiting or set aside. Default {@linkcode OUTBOX_LIMIT}. */
  limit?: number;
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** How long set-aside violation reports are kept, by default: 7 days. */
export const OUTBOX_SET_ASIDE_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** The most violation reports the outbox keeps, by default (key records are not counted). */
export const OUTBOX_LIMIT = 10_000;

/** Items the cloud refused for good, counted by reason. */
export interface OutboxSetAside {
  /** Every item set aside. */
  count: number;
  /** Per reason (the cloud's code and message), most first. */
  reasons: { reason: string; count: number }[];
}

/** The outbox's controls. */
export interface Outbox {
  /** Sends what is queued, unless a retry is already scheduled. */
  kick(): void;
  /** Sends what is queued now, ignoring any backoff; resolves with how many items still wait (set-aside ones not). */
  sync(): Promise<number>;
  /** The items set aside (refused by the cloud for good), by reason. */
  setAside(): Promise<OutboxSetAside>;
  /** Deletes set-aside violation reports past their retention, and the oldest ones over the limit. */
  purge(): Promise<void>;
  /** Stops sending; queued items stay in storage for the next start. */
  close(): Promise<void>;
  /**
   * Items set aside (refused for good), and violation reports deleted for their age (`expired`) or over the
   * limit (`overLimit`), since the start.
   */
  readonly stats: { setAside: number; expired: number; overLimit: number };
}

/** A day, in milliseconds. */
const DAY_MS = 24 * 60 * 60 * 1000;
/** Items read from storage at once. */
const HEAD = 100;
/** The largest batch of violations, in bytes of JSON (a quarter of the cloud's default body limit). */
const BATCH_BYTES = 256 * 1024;

/**
 * Starts an outbox and sends what an earlier run left in it. It does not purge
 * itself: `purge()` does, called by the app's retention at start and hourly.
 *
 * @param options Storage, cloud, logger and retry delays.
 * @returns The outbox.
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { storage, cloud, log } = options;
  const maxMs = options.retryMaxMs ?? 30_000;
  const backoff = new Backoff({ minMs: options.retryMinMs ?? 500, maxMs });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  const now = options.now ?? PLATFORM.now;
  const stats = { setAside: 0, expired: 0, overLimit: 0 };
  const deliver = outboxDelivery(storage, cloud, log, now, stats);
  const purging = outboxPurge(storage, {
    retentionMs: options.setAsideRetentionMs ?? OUTBOX_SET_ASIDE_RETENTION_MS,
    limit: options.limit ?? OUTBOX_LIMIT,
    log,
    now,
    stats,
  });

  /** Sends items until the queue is empty or a unit fails; `true` when empty. */
  async function drainOnce(): Promise<boolean> {
    for (;;) {
      const items = await storage.outboxHead(HEAD);
      if (items.length === 0) return true;
      for (const unit of units(items)) {
        if (closed || !await deliver(unit)) return false;
      }
    }
  }

  function run(): Promise<void> {
    if (closed) return Promise.resolve(); // a timer that fires after close() reads nothing
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        let empty = false;
        try {
          empty = await drainOnce();
        } catch (error) {
          log("the outbox could not be read", error);
        }
        if (empty) backoff.reset();
        else if (!closed) {
          // sync() may have started this run while an earlier one had set its timer: one timer, the handle kept.
          if (timer !== undefined) clearTimeout(timer);
          timer = setTimeout(() => {
            timer = undefined;
            run();
          }, Math.min(backoff.next(), maxMs));
          again = false;
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  run();
  return {
    kick() {
      if (timer === undefined && !closed) run();
    },
    async sync() {
      if (timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
      await running;
      await run();
      await purging.current();
      return await storage.outboxSize();
    },
    async setAside() {
      const reasons = await storage.outboxSetAsideByReason();
      return { count: reasons.reduce((n, r) => n + r.count, 0), reasons };
    },
    purge: purging.purge,
    stats,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
      await purging.current();
    },
  };
}

/** The outbox's counts since it started, as {@linkcode Outbox.stats} shows them. */
type OutboxStats = Outbox["stats"];

/**
 * Builds how the outbox sends a unit (one key, or a batch of violations) and what becomes of it: done, retried
 * later (a transient failure, the pause logged once) or set aside (a refusal no retry can change).
 *
 * @param storage The app's storage (the queue).
 * @param cloud The cloud's client.
 * @param log Where a pause, its end and a set-aside item are logged.
 * @param now The clock of the pause.
 * @param stats Where set-aside items are counted.
 * @returns `deliver`: `true` when the unit is done with (sent, or set aside).
 */
function outboxDelivery(
  storage: AppStorage,
  cloud: Pick<CloudClient, "mirrorKey" | "reportViolations" | "reportActivity" | "postApprovalSteps">,
  log: ErrorLogger,
  now: () => number,
  stats: OutboxStats,
): (items: readonly OutboxItem[]) => Promise<boolean> {
  /** When sending first failed, until a send succeeds again. */
  let pausedAt: number | undefined;

  /** Sends one key record (its latest state). */
  async function sendKey(item: OutboxItem): Promise<void> {
    const record = await storage.findKeyById(item.ref);
    const told: { reroll?: KeyReroll } = item.body === null ? {} : JSON.parse(item.body);
    if (record !== null) await cloud.mirrorKey(record, told.reroll);
  }

  /** Sends violations, or activity records, in one request. */
  async function sendBatch(items: readonly OutboxItem[]): Promise<void> {
    const bodies = items.map((item) => JSON.parse(item.body ?? "null"));
    if (items[0].kind === "activity") await cloud.reportActivity(bodies);
    else if (items[0].kind === "approval") await cloud.postApprovalSteps(bodies); // each (approvalId, status) once
    else await cloud.reportViolations(bodies);
  }

  /**
   * Sends a unit (one key, or a batch of violations or of approval steps); `true` when it is done with
   * (sent, or set aside). A refused batch is retried one by one, so one bad
   * report never costs the others.
   */
  async function deliver(items: readonly OutboxItem[]): Promise<boolean> {
    try {
      if (items[0].kind === "key") await sendKey(items[0]);
      else await sendBatch(items);
    } catch (error) {
      if (isTransient(error)) {
        await failed(items, error);
        return false;
      }
      if (items.length > 1) {
        for (const item of items) if (!await deliver([item])) return false;
        return true;
      }
      await refused(items[0], error);
      return true;
    }
    await storage.outboxDone(items.map((i) => i.seq));
    if (pausedAt !== undefined) log(`cloud sync resumed: ${reconnectedAfter(now() - pausedAt)}`, undefined);
    pausedAt = undefined;
    return true;
  }

  /** A transient failure: counted, retried later; never set aside. */
  async function failed(items: readonly OutboxItem[], error: unknown): Promise<void> {
    await storage.outboxFailed(items.map((i) => i.seq));
    if (pausedAt === undefined) log("cloud sync paused; retrying in the background", error);
    pausedAt ??= now();
  }

  /** A refusal no retry can change: the item is set aside, with the reason. */
  async function refused(item: OutboxItem, error: unknown): Promise<void> {
    const reason = reasonOf(error);
    await storage.outboxSetAside([item.seq], reason);
    stats.setAside++;
    const what = item.kind === "key"
      ? `key record (key ${item.ref})`
      : item.kind === "approval"
      ? `approval step (${item.ref})`
      : item.kind === "activity"
      ? `activity record (${item.ref})`
      : `violation report (${item.ref})`;
    log(`the cloud refused a queued ${what} (${reason}); it is set aside and will not be retried`, error);
  }

  return deliver;
}

/** What {@linkcode outboxPurge} is given. */
interface OutboxPurgeOptions {
  /** How long set-aside items are kept, in milliseconds. */
  retentionMs: number;
  /** The most items the outbox holds. */
  limit: number;
  /** Where deletions are logged, by count. */
  log: ErrorLogger;
  /** The clock. */
  now: () => number;
  /** Where deletions are counted. */
  stats: OutboxStats;
}

/**
 * Builds the outbox's purge: set-aside items past their retention and items over the limit deleted, one purge at a
 * time.
 *
 * @param storage The app's storage (the queue).
 * @param options Retention, limit, logger, clock and counts.
 * @returns `purge()`, and `current()`: the purge in flight, if any.
 */
function outboxPurge(
  storage: AppStorage,
  { retentionMs, limit, log, now, stats }: OutboxPurgeOptions,
): { purge(): Promise<void>; current(): Promise<void> | undefined } {
  let purging: Promise<void> | undefined;

  /** One purge at a time; a call during one waits for it. */
  function purge(): Promise<void> {
    purging ??= (async () => {
      try {
        const setAsideBefore = new Date(now() - retentionMs).toISOString();
        const { expired, dropped } = await storage.purgeOutbox({ setAsideBefore, limit });
        stats.expired += expired;
        stats.overLimit += dropped;
        if (expired > 0) {
          log(
            `${expired} violation reports the cloud refused were deleted from the outbox, ` +
              `made over ${Number((retentionMs / DAY_MS).toFixed(2))} days ago; the cloud never got them`,
            undefined,
          );
        }
        if (dropped > 0) {
          log(
            `${dropped} violation reports were dropped from the outbox, over its limit of ${limit}; ` +
              "the cloud never got them",
            undefined,
          );
        }
      } catch (error) {
        log("the outbox could not be purged", error);
      } finally {
        purging = undefined;
      }
    })();
    return purging;
  }

  return { purge, current: () => purging };
}

/** The most characters of a set-aside item's reason. */
const REASON_CHARS = 200;

/** Why the cloud refused an item: its code and message (an error the SDK made itself: its message). */
function reasonOf(error: unknown): string {
  const text = isSvcError(error) ? `${error.code}: ${error.message}` : String(error);
  return text.slice(0, REASON_CHARS);
}

/** Splits the head of the queue into what is sent together: each key alone, violations, activity records and approval steps in batches of one kind. */
function units(items: readonly OutboxItem[]): OutboxItem[][] {
  const out: OutboxItem[][] = [];
  let batch: OutboxItem[] = [];
  let bytes = 0;
  for (const item of items) {
    if (item.kind === "key") {
      out.push([item]);
      continue;
    }
    const size = item.body?.length ?? 0;
    const full = batch.length === VIOLATION_BATCH_LIMIT || bytes + size > BATCH_BYTES;
    if (batch.length > 0 && (full || batch[0].kind !== item.kind)) {
      out.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(item);
    bytes += size;
  }
  if (batch.length > 0) out.push(batch);
  return out;
}
