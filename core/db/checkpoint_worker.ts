/**
 * The worker thread of a native executor's file: a second connection to it that checkpoints its WAL, so that the
 * checkpoint's two fsyncs (10-190 ms for about 1,000 pages) never hold the event loop, and runs the write batches the
 * executor sets aside ({@linkcode Executor.writeAside}: the app's activity records), so that their inserts do not
 * either. Its messages, in order: the file's path and the executor's busy timeout (it opens the connection,
 * `synchronous = NORMAL` and a busy timeout of `RESTART_WAIT_MS`, and answers `{ ready: true }`, or `{ failed: true }`
 * when the file cannot be opened), then any of `"checkpoint"` (answered with a {@linkcode CheckpointResult} or
 * `{ busy: true }`), `{ write }` (statements run in one write transaction, waiting for the write lock as long as the
 * busy timeout: answered `{ written: true }` or `{ writeFailed }` with the error's message and codes) and `"close"` (it
 * closes its connection and ends). It answers in the order it was asked.
 *
 * @module
 */
// @ts-types="./libsql_binding.d.ts"
import Database from "libsql";
import type { NativeDatabase, NativeStatement } from "./libsql_binding.d.ts";
import { checkpointWal, RESTART_WAIT_MS } from "./wal_checkpoint.ts";
import type { CheckpointResult } from "./wal_checkpoint.ts";
import type { SqlValue } from "./executor.ts";
import { BoundedMap } from "../cache/mod.ts";
import { workerParent } from "../platform/mod.ts";

/**
 * A write batch set aside: each statement's SQL and how many arguments it takes, run in order in one transaction, and
 * the arguments of them all, in order: where every one is text, as one string and their lengths (one string and one
 * typed array cost the main thread less to send than thousands of strings), otherwise as they are.
 */
export interface WriteRequest {
  write: readonly string[];
  sizes: readonly number[];
  args: { text: string; lengths: Uint32Array } | readonly SqlValue[];
}

/** The arguments of a batch, one array. */
function valuesOf(args: WriteRequest["args"]): readonly SqlValue[] {
  if (!("text" in args)) return args;
  const { text, lengths } = args;
  const values = new Array<string>(lengths.length);
  for (let i = 0, at = 0; i < lengths.length; i++) values[i] = text.slice(at, at += lengths[i]);
  return values;
}

/** A message from the executor. */
export type CheckpointRequest = { path: string; busyTimeoutMs: number } | "checkpoint" | WriteRequest | "close";

/** What the worker tells of a write that failed: enough for `storageFailure` to recognise a full disk or a lock. */
export interface WriteFailure {
  message: string;
  code?: string;
  rawCode?: number;
}

/** A message to the executor. */
export type CheckpointAnswer =
  | { ready: true }
  | { failed: true }
  | { busy: true }
  | CheckpointResult
  | { written: true }
  | { writeFailed: WriteFailure };

/** Prepared statements the worker keeps (a group's inserts are a few shapes), the least recently used dropped past it. */
const STATEMENTS_KEPT = 64;

const parent = workerParent();
if (parent !== undefined) serve(parent);

/** Answers the executor's messages until it sends `"close"`. */
function serve(port: NonNullable<typeof parent>): void {
  let db: NativeDatabase | undefined;
  let busyTimeoutMs = RESTART_WAIT_MS;
  const prepared = new BoundedMap<string, NativeStatement>({ maxEntries: STATEMENTS_KEPT });
  const answer = (message: CheckpointAnswer) => port.postMessage(message);

  /** Runs a batch in one write transaction, waiting for the lock on this thread. */
  function write({ write: sqls, sizes, args }: WriteRequest): void {
    if (db === undefined) return; // it could not open the file: the executor, told so, runs its writes itself
    try {
      const values = valuesOf(args);
      db.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
      db.exec("BEGIN IMMEDIATE");
      for (let i = 0, at = 0; i < sqls.length; at += sizes[i++]) {
        let statement = prepared.get(sqls[i]);
        if (statement === undefined) prepared.set(sqls[i], statement = db.prepare(sqls[i]));
        statement.run(values.slice(at, at + sizes[i]) as SqlValue[]);
      }
      db.exec("COMMIT");
      answer({ written: true });
    } catch (error) {
      try {
        if (db.inTransaction) db.exec("ROLLBACK");
      } catch {
        // the connection's next BEGIN says what is wrong
      }
      const { message, code, rawCode } = error as { message?: unknown; code?: unknown; rawCode?: unknown };
      answer({
        writeFailed: {
          message: String(message ?? error),
          ...typeof code === "string" ? { code } : {},
          ...typeof rawCode === "number" ? { rawCode } : {},
        },
      });
    } finally {
      try {
        db.exec(`PRAGMA busy_timeout = ${RESTART_WAIT_MS}`);
      } catch {
        // as above
      }
    }
  }

  port.onMessage((message) => {
    const request = message as CheckpointRequest;
    if (request === "close") {
      try {
        prepared.clear();
        db?.close();
      } finally {
        db = undefined;
        port.close();
      }
    } else if (request === "checkpoint") {
      if (db === undefined) return answer({ failed: true });
      try {
        answer(checkpointWal(db));
      } catch {
        answer({ busy: true }); // busy, or an I/O error the executor's next statement meets
      }
    } else if ("write" in request) {
      write(request);
    } else {
      try {
        busyTimeoutMs = Math.floor(request.busyTimeoutMs);
        // A restart waits for the write lock and the WAL's readers on this thread; a passive checkpoint never waits.
        db = new Database(request.path, { timeout: RESTART_WAIT_MS });
        db.exec("PRAGMA synchronous = NORMAL"); // the executor's: the checkpoint syncs the WAL, then the file
        db.exec("PRAGMA wal_autocheckpoint = 0");
        answer({ ready: true });
      } catch {
        db = undefined;
        answer({ failed: true });
      }
    }
  });
}
