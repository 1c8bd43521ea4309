/**
 * The worker thread that checkpoints a file's WAL for a native executor, so that the checkpoint's two fsyncs (10-190
 * ms for about 1,000 pages) never hold the event loop. Its messages, in order: the file's path (it opens a second
 * connection to it, `synchronous = NORMAL` and a busy timeout of `RESTART_WAIT_MS`, and answers `{ ready: true }`, or
 * `{ failed: true }` when the file cannot be opened), then `"checkpoint"` (answered with a {@linkcode CheckpointResult}
 * or `{ busy: true }`), and `"close"` (it closes its connection and ends).
 *
 * @module
 */
// @ts-types="./libsql_binding.d.ts"
import Database from "libsql";
import type { NativeDatabase } from "./libsql_binding.d.ts";
import { checkpointWal, RESTART_WAIT_MS } from "./wal_checkpoint.ts";
import type { CheckpointResult } from "./wal_checkpoint.ts";
import { workerParent } from "../platform/mod.ts";

/** A message from the executor. */
export type CheckpointRequest = { path: string } | "checkpoint" | "close";

/** A message to the executor. */
export type CheckpointAnswer = { ready: true } | { failed: true } | { busy: true } | CheckpointResult;

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
        answer(checkpointWal(db));
      } catch {
        answer({ busy: true }); // busy, or an I/O error the executor's next statement meets
      }
    } else {
      try {
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
