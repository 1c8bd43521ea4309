/**
 * The one place libSQL's errors are recognised: a database that cannot grow
 * (`SQLITE_FULL`, the disk is full) and one locked past its busy timeout
 * (`SQLITE_BUSY`, `SQLITE_LOCKED`) become the contract's `507 STORAGE_FULL` and
 * `503 STORAGE_BUSY`, each with `Retry-After`, instead of `500 INTERNAL`; and a
 * logger that says so once a minute per kind, with the fix. Both engines (the
 * native binding and `@libsql/client`) name the failure in `code` (or its
 * number in `rawCode`), somewhere along the `cause` chain: recognised by shape.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Which storage failure an error is: the disk is full, or the database is locked. */
export type StorageFailure = "full" | "busy";

/** SQLite's primary result codes of the two failures (an extended code keeps them in its low byte). */
const RAW_CODES: Readonly<Record<number, StorageFailure>> = { 13: "full", 5: "busy", 6: "busy" };
/** Their names, as the engines put them in `code` (an extended code starts with one: `SQLITE_BUSY_SNAPSHOT`). */
const NAMED = /^SQLITE_(FULL|BUSY|LOCKED)(_|$)/;
/** How deep along the `cause` chain to look. */
const CAUSE_DEPTH = 5;

/** How long a client waits before trying again, in seconds, for each failure. */
const RETRY_AFTER_S: Readonly<Record<StorageFailure, number>> = { full: 30, busy: 1 };

/**
 * Which storage failure an error is, by its `code` or `rawCode` (here or in a `cause`).
 *
 * @example The disk is full
 * ```ts
 * import { storageFailure } from "./storage_failure.ts";
 *
 * console.log(storageFailure({ code: "SQLITE_FULL", message: "database or disk is full" })); // "full"
 * console.log(storageFailure(new Error("other"))); // undefined
 * ```
 *
 * @param error Anything thrown.
 * @returns `full`, `busy`, or `undefined` for any other error.
 */
export function storageFailure(error: unknown): StorageFailure | undefined {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < CAUSE_DEPTH; depth++) {
    const { code, rawCode, cause } = e as { code?: unknown; rawCode?: unknown; cause?: unknown };
    const named = typeof code === "string" ? NAMED.exec(code)?.[1] : undefined;
    if (named !== undefined) return named === "FULL" ? "full" : "busy";
    if (typeof rawCode === "number" && RAW_CODES[rawCode & 0xff] !== undefined) return RAW_CODES[rawCode & 0xff];
    e = cause;
  }
  return undefined;
}

/**
 * The contract's error for a storage failure: `507 STORAGE_FULL` or `503 STORAGE_BUSY`, with `Retry-After`.
 *
 * @example A write on a full disk
 * ```ts
 * import { storageError } from "./storage_failure.ts";
 *
 * console.log(storageError({ code: "SQLITE_FULL" })?.status); // 507
 * ```
 *
 * @param error Anything thrown.
 * @returns The error to answer with (its cause the original), or `undefined` when it is no storage failure.
 */
export function storageError(error: unknown): SvcError | undefined {
  const failure = storageFailure(error);
  if (failure === undefined) return undefined;
  const headers = { "retry-after": String(RETRY_AFTER_S[failure]) };
  return failure === "full"
    ? new SvcError("STORAGE_FULL", "The database cannot grow: its disk is full", { cause: error, headers })
    : new SvcError("STORAGE_BUSY", "The database is locked by another writer", { cause: error, headers });
}

/** How often each kind of storage failure is logged, at most. */
export const STORAGE_FAILURE_LOG_MS = 60_000;

/**
 * Wraps a logger so that a storage failure (whatever the message it comes with) is written as one line
 * with the fix, at most once a minute per kind, without its stack; everything else passes as it is.
 *
 * @example On the app's logger
 * ```ts
 * import { storageFailureLogger } from "./storage_failure.ts";
 *
 * const log = storageFailureLogger((m) => console.error(m), "file:./data/app.db");
 * log("a write failed", { code: "SQLITE_FULL" }); // the disk holding file:./data/app.db is full: …
 * log("a write failed", { code: "SQLITE_FULL" }); // (nothing: within the minute)
 * ```
 *
 * @param log The logger to write to.
 * @param database What names the database in the line (a URL, never with its credentials).
 * @param now The clock, in milliseconds. Default `Date.now`.
 * @returns The logger.
 */
export function storageFailureLogger(
  log: (message: string, cause: unknown) => void,
  database: string,
  now: () => number = PLATFORM.now,
): (message: string, cause: unknown) => void {
  const lastLogged: Record<StorageFailure, number> = { full: -Infinity, busy: -Infinity };
  return (message, cause) => {
    const failure = storageFailure(cause);
    if (failure === undefined) return log(message, cause);
    const at = now();
    if (at - lastLogged[failure] < STORAGE_FAILURE_LOG_MS) return;
    lastLogged[failure] = at;
    log(failure === "full" ? fullLine(database) : busyLine(database), undefined);
  };
}

function fullLine(database: string): string {
  return `STORAGE_FULL: the disk holding ${database} is full: free space on it (or move the database to a larger ` +
    "disk). Until then writes (revokes, events, new keys) answer 507 with Retry-After while reads keep working; " +
    "no restart is needed once there is room. (Logged at most once a minute.)";
}

function busyLine(database: string): string {
  return `STORAGE_BUSY: ${database} stayed locked by another writer past the busy timeout: look for another ` +
    "process holding a write transaction open on it (a backup, a migration, a shell), or keep one writer per file. " +
    "Writes answer 503 with Retry-After meanwhile; reads keep working. (Logged at most once a minute.)";
}

/**
 * What names a database in a log line: a URL without its query or user part (either may hold a secret).
 *
 * @param input A URL or an injected client.
 * @returns The name.
 */
export function databaseName(input: unknown): string {
  if (typeof input !== "string") return "the database (an injected libSQL client)";
  return input.split("?")[0].replace(/\/\/[^/@]*@/, "//");
}
