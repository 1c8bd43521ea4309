/**
 * One checkpoint of a file's WAL, as the native executor runs it: on its own connection (the fallback) or on a second
 * connection in a worker thread (`checkpoint_worker.ts`).
 *
 * @module
 */
import type { NativeDatabase } from "./libsql_binding.d.ts";

/**
 * Pages in a file's WAL that a passive checkpoint leaves there (the WAL was not restarted since it held them: other
 * processes kept reading) past which a restart is tried: it holds the write lock while it copies what the passive one
 * could not, then starts the WAL over, and gives up at once when another process is writing or reading the WAL.
 */
export const WAL_RESTART_FRAMES = 4_000;

/**
 * How long the worker's restart waits for the write lock and for the WAL's readers, in milliseconds (SQLite's busy
 * handler, on the worker's thread): the executor's writes hold the lock in short bursts, and while the restart holds it
 * they wait for it with the event loop running.
 */
export const RESTART_WAIT_MS = 100;

/** What a checkpoint found. */
export interface CheckpointResult {
  /** Pages in the WAL. */
  frames: number;
  /** Pages of them now copied into the database file. */
  copied: number;
  /** Whether a restart ran to the end (the WAL starts over at the next commit). */
  restarted: boolean;
}

/**
 * Checkpoints the WAL passively (it copies what no reader still needs, and never waits), then, when the WAL still
 * holds {@linkcode WAL_RESTART_FRAMES} pages, with a restart, which waits as long as the connection's busy timeout for
 * the write lock and for the WAL's readers: 0 on the executor's own connection (it gives up at once, having copied what
 * it could, as a passive one), {@linkcode RESTART_WAIT_MS} on the worker's thread, where only that thread waits.
 *
 * @param db A connection to the file, outside any transaction.
 * @returns The pages found and copied, and whether the restart ran to the end.
 * @throws {Error} Busy (another connection checkpoints) or an I/O error.
 */
export function checkpointWal(db: NativeDatabase): CheckpointResult {
  const [, frames, copied] = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw(true).get([]) as [number, number, number];
  if (frames < WAL_RESTART_FRAMES) return { frames, copied, restarted: false };
  const [busy] = db.prepare("PRAGMA wal_checkpoint(RESTART)").raw(true).get([]) as [number];
  return { frames, copied, restarted: busy === 0 };
}
