/**
 * The worker thread that checkpoints a file's WAL for a native executor, so that the checkpoint's two fsyncs (10-190
 * ms for about 1,000 pages) never hold the event loop. Its messages, in order: the file's path (it opens a second
 * connection to it, `synchronous = NORMAL` and a busy timeout of 0, and answers `{ ready: true }`, or
 * `{ failed: true }` when the file cannot be opened), then `"checkpoint"` (answered with a {@linkcode CheckpointResult}
 * or `{ busy: true }`), and `"close"` (it closes its connection and ends).
 *
 * @module
 */
// @ts-types="./libsql_binding.d.ts"
import Database from "libsql";
import type { NativeDatabase } from "./libsql_binding.d.ts";
import { checkpointWal } from "./wal_checkpoint.ts";
import type { CheckpointResult } from "./wal_checkpoint.ts";
import { workerParent } from "../platform/mod.ts";

/**
 * How many times the worker tries a restart (the WAL past `WAL_RESTART_FRAMES` pages) that finds the write lock taken
 * or a reader in the WAL, {@linkcode RESTART_PAUSE_MS} apart: only this thread waits meanwhile.
 */
export const RESTART_TRIES = 20;

/** Milliseconds between two tries of a restart. */
export const RESTART_PAUSE_MS = 1;

/** A message from the executor. */
export type CheckpointRequest = { path: string } | "checkpoint" | "close";

/** A message to the executor. */
export type CheckpointAnswer = { ready: true } | { failed: true } | { busy: true } | CheckpointResult;

/** Blocks this thread (a worker's: no event loop waits on it) for {@linkcode RESTART_PAUSE_MS}. */
function pause(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RESTART_PAUSE_MS);
}

const parent = workerParent();
if (parent !== undefined) serve(parent);

/** Answers the executor's messages until it sends `"close"`. */
function serve(port: NonNullable<typeof parent>): void {
  let db: NativeDatabase | undefined;
  const answer = (message: CheckpointAnswer) => port.postMessage(message);
  port.onMessage((message) => {
    const request = message as CheckpointRequest;
    if (request === "close") {
      try {
        db?.close();
      } finally {
        db = undefined;
        port.close();
      }
    } else if (request === "checkpoint") {
      if (db === undefined) return answer({ failed: true });
      try {
        answer(checkpointWal(db, { tries: RESTART_TRIES, pause }));
      } catch {
        answer({ busy: true }); // busy, or an I/O error the executor's next statement meets
      }
    } else {
      try {
        db = new Database(request.path, { timeout: 0 });
        db.exec("PRAGMA busy_timeout = 0"); // a restart gives up at once rather than wait
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
