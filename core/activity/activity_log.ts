/**
 * What agents did, as the app records it: one record per agent run made with a known key (`POST /svc/agent/run`,
 * MCP `tools/call`), whatever its outcome. A run only pushes what it knows onto a bounded buffer in memory; a small
 * group writer mints each record (`act_` + a monotonic ULID from the runtime's clock and randomness), names the OAuth client of a
 * grant's key, and writes them in groups, on a short timer and on close. When the buffer is full a record is dropped
 * and counted, never waited for. Never a payload, never a secret.
 *
 * @module
 */
import {
  ACTIVITY_ID_PREFIX,
  type ActivityOutcome,
  type ActivityPage,
  type ActivityRecord,
  type ActivityVia,
  MAX_BATCH,
  redactSecrets,
  storedText,
} from "../contract/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { monotonicUlids } from "./monotonic_ids.ts";

/** The most runs waiting in memory to be written; more are dropped and counted. */
export const ACTIVITY_BUFFER_LIMIT = 10_000;
/** How long a run waits in memory before its group is written, at most, in milliseconds. */
export const ACTIVITY_FLUSH_MS = 250;
/** How long records are kept by default (local and hybrid modes), in days. */
export const DEFAULT_ACTIVITY_RETENTION_DAYS = 30;
/** The intent of a run whose body named none the app could read (a rate-limited run's body is never read). */
export const UNKNOWN_INTENT = "(unknown)";

/** One run, as the code that answered it knows it. */
export interface ActivityRun {
  /** The key that ran it (its grant, when it is an OAuth access token). */
  key: { id: string; userId: string; agentId: string | null; grantId?: string | null };
  /** The intent as sent (any value: it is cut to 200 characters, secrets redacted; none readable: `(unknown)`). */
  intent: unknown;
  /** `http` or `mcp`. */
  via: ActivityVia;
  /** The HTTP status answered (for MCP, the status the same answer has over HTTP). */
  status: number;
  /** The error code of a refusal or failure. */
  code?: string;
  /** How it ended; default from the status and code ({@linkcode outcomeOf}). */
  outcome?: ActivityOutcome;
  /** Milliseconds from the key check to the answer. */
  ms: number;
  /** The approval this run asked for or ran on. */
  approvalId?: string;
}

/** What `GET /svc/activity` asks for. */
export interface ActivityQuery {
  /** Only this key's runs. */
  keyId?: string;
  /** The `nextCursor` of the page before. */
  cursor?: string;
  /** The most records. */
  limit: number;
}

/** The app's record of what agents did. */
export interface ActivityLog {
  /** Records a run; never waits (dropped and counted when the buffer is full, or recording is off). */
  record(run: ActivityRun): void;
  /** The monotonic clock runs are timed with, in milliseconds. */
  elapsed(): number;
  /** A user's records, newest first (what was recorded before is written first). */
  list(userId: string, query: ActivityQuery): Promise<ActivityPage>;
  /** Writes what waits in memory. */
  flush(): Promise<void>;
  /** Writes what waits, then stops: later runs are not recorded. */
  close(): Promise<void>;
  /** Runs dropped since the start (the buffer was full, or their write failed). */
  readonly dropped: number;
}

/** Options of {@linkcode createActivityLog}. */
export interface ActivityLogOptions {
  /** Writes a group of records (up to 500), in one transaction. */
  write: (records: ActivityRecord[]) => Promise<void>;
  /** Reads a user's records. */
  read: (userId: string, query: ActivityQuery) => Promise<ActivityPage>;
  /** The OAuth client's name of each grant asked for (those found). */
  clientNames: (grantIds: readonly string[]) => Promise<ReadonlyMap<string, string>>;
  /** The runtime's clock, randomness and monotonic clock. */
  runtime: { now(): number; random(): number; elapsed(): number };
  /** Where failed writes are logged. */
  log: ErrorLogger;
  /** Told of each run dropped. */
  dropped?: (count: number) => void;
  /** The buffer's bound. Default {@linkcode ACTIVITY_BUFFER_LIMIT}. */
  limit?: number;
  /** The group writer's delay. Default {@linkcode ACTIVITY_FLUSH_MS}. */
  flushMs?: number;
}

/** A run waiting in memory, with when it was answered. */
interface Pending {
  run: ActivityRun;
  at: number;
}

/**
 * Starts the app's record of what agents did.
 *
 * @param options Where records are written and read, the runtime, the logger and the bounds.
 * @returns The log.
 *
 * @example Record a run
 * ```ts
 * import { createActivityLog } from "./activity_log.ts";
 * const written: unknown[] = [];
 * const activity = createActivityLog({
 *   write: (records) => Promise.resolve(void written.push(...records)),
 *   read: () => Promise.resolve({ activity: [], nextCursor: null }),
 *   clientNames: () => Promise.resolve(new Map()),
 *   runtime: { now: Date.now, random: Math.random, elapsed: () => performance.now() },
 *   log: () => {},
 * });
 * activity.record({ key: { id: "k", userId: "u", agentId: null }, intent: "notes.list", via: "http", status: 200, ms: 1 });
 * await activity.close();
 * console.log(written.length); // 1
 * ```
 */
export function createActivityLog(options: ActivityLogOptions): ActivityLog {
  const { runtime, log } = options;
  const limit = options.limit ?? ACTIVITY_BUFFER_LIMIT;
  const flushMs = options.flushMs ?? ACTIVITY_FLUSH_MS;
  let buffer: Pending[] = [];
  /** Runs recorded and not yet written (buffered, or taken by a write under way): what the bound counts. */
  let unwritten = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let closed = false;
  let dropped = 0;
  // Monotonic: records of one millisecond keep the order they were made in, so "newest first" is exact.
  const mint = monotonicUlids(() => runtime.random());
  const minting: Minting = { mint, names: new Map(), sent: undefined, intent: UNKNOWN_INTENT, at: NaN, iso: "" };

  function drop(count: number): void {
    dropped += count;
    options.dropped?.(count);
  }

  /** Mints the records of a group and writes them. */
  async function writeGroup(group: readonly Pending[]): Promise<void> {
    try {
      const grants = [...new Set(group.flatMap((p) => p.run.key.grantId ?? []))];
      const names = grants.length === 0 ? new Map<string, string>() : await options.clientNames(grants);
      minting.names = names;
      await options.write(group.map((p) => toRecord(p, minting)));
    } catch (error) {
      drop(group.length);
      log(`${group.length} activity records could not be written`, error);
    } finally {
      unwritten -= group.length;
    }
  }

  /**
   * Writes everything buffered, in groups of at most 500, after the writes already under way. Between two groups the
   * event loop turns (the requests that arrived meanwhile are answered): a flush of a busy server's 250 ms, thousands
   * of records, written in one go held every request for its whole length (p99 of a run 50 ms against 10 without
   * activity, `npm run bench -- --only=app`).
   */
  function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const taken = buffer;
    buffer = [];
    writing = writing.then(async () => {
      for (let i = 0; i < taken.length; i += MAX_BATCH) {
        // A timer, not an immediate: on Deno an immediate runs before the runtime reads its sockets again, so the
        // requests that arrived meanwhile waited for every group (a run's p99 24 ms against 9-12 ms, the bench app).
        if (i > 0) await new Promise<void>((resolve) => setTimeout(resolve, 0));
        await writeGroup(taken.slice(i, i + MAX_BATCH));
      }
    });
    return writing;
  }

  return {
    record(run) {
      if (closed || unwritten >= limit) return drop(1);
      unwritten++;
      // Written on the timer only, a full group or not: one flush writes its groups back to back, which costs a
      // run less than a group written each time one fills between requests (measured: bench/handler_cost.ts).
      buffer.push({ run, at: runtime.now() });
      timer ??= setTimeout(flush, flushMs);
    },
    elapsed: () => runtime.elapsed(),
    async list(userId, query) {
      await flush();
      return await options.read(userId, query);
    },
    flush,
    async close() {
      await flush();
      closed = true;
    },
    get dropped() {
      return dropped;
    },
  };
}

/**
 * The log of an app whose recording is off (`activity: false`): nothing is recorded, every list is empty.
 *
 * @param elapsed The monotonic clock.
 * @returns The log.
 */
export function activityOff(elapsed: () => number): ActivityLog {
  return {
    record() {},
    elapsed,
    list: () => Promise.resolve({ activity: [], nextCursor: null }),
    flush: () => Promise.resolve(),
    close: () => Promise.resolve(),
    dropped: 0,
  };
}

/**
 * How a run ended, from its answer: 2xx `ok` (`202` with an approval: `pending_approval`), a refused payload
 * (`400`, `413`, `415`, `VALIDATION_ERROR`) `invalid`, 5xx `failed`, any other refusal `refused`.
 *
 * @param status The HTTP status.
 * @param code The error code, if any.
 * @param approvalId The approval the run asked for, if any.
 * @returns The outcome.
 */
export function outcomeOf(status: number, code?: string, approvalId?: string): ActivityOutcome {
  if (status < 300) return status === 202 && approvalId !== undefined ? "pending_approval" : "ok";
  if (code === "VALIDATION_ERROR" || status === 400 || status === 413 || status === 415) return "invalid";
  return status >= 500 ? "failed" : "refused";
}

/** The stored form of an intent as sent: a well-formed name cut to 200 characters, secrets redacted. */
const intentText = storedText(1, 200);

/** The intent of a record: what was sent, when it is text the record can keep. */
function intentOf(sent: unknown): string {
  if (typeof sent !== "string") return UNKNOWN_INTENT;
  const text = redactSecrets(sent.slice(0, 200));
  return intentText.safeParse(text).success ? text : UNKNOWN_INTENT;
}

/**
 * What minting the records of a group uses: the ULID factory, the client names of its grants, and the last intent and
 * time formatted (the runs of a group mostly share their intent, and many their millisecond: each is formatted once).
 */
interface Minting {
  mint: (at: number) => string;
  names: ReadonlyMap<string, string>;
  sent: unknown;
  intent: string;
  at: number;
  iso: string;
}

/** Mints the record of a run answered at `at`. */
function toRecord({ run, at }: Pending, minting: Minting): ActivityRecord {
  const { key, via, status, code, approvalId } = run;
  const client = key.grantId == null ? undefined : minting.names.get(key.grantId);
  if (run.intent !== minting.sent) {
    minting.sent = run.intent;
    minting.intent = intentOf(run.intent);
  }
  if (at !== minting.at) {
    minting.at = at;
    minting.iso = new Date(at).toISOString();
  }
  return {
    id: ACTIVITY_ID_PREFIX + minting.mint(at),
    at: minting.iso,
    keyId: key.id,
    userId: key.userId,
    agentId: key.agentId,
    intent: minting.intent,
    via,
    outcome: run.outcome ?? outcomeOf(status, code, approvalId),
    status,
    ...code === undefined ? {} : { code },
    ms: Math.max(0, Math.round(run.ms * 1000) / 1000),
    ...client === undefined ? {} : { client },
    ...approvalId === undefined ? {} : { approvalId },
  };
}
