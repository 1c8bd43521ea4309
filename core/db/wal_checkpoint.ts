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
 * holds {@linkcode WAL_RESTART_FRAMES} pages, with a restart. The connection's busy timeout must be 0: a restart that
 * would wait for another connection's write lock or reader gives up at once (and copies what it can, as a passive
 * one). On a thread of its own (the worker), a restart refused is tried again after `pause`, a few times: the
 * executor's writes hold the write lock in short bursts, and between two of them the restart gets it.
 *
 * @param db A connection to the file, outside any transaction, its busy timeout 0.
 * @param restart How many times a restart is tried, and what runs between two tries (blocks its thread: a worker's).
 * @returns The pages found and copied.
 * @throws {Error} Busy (another connection checkpoints) or an I/O error.
 */
export function checkpointWal(
  db: NativeDatabase,
  restart: { tries: number; pause?: () => void } = { tries: 1 },
): CheckpointResult {
  const [, frames, copied] = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw(true).get([]) as [number, number, number];
  if (frames < WAL_RESTART_FRAMES) return { frames, copied, restarted: false };
  const statement = db.prepare("PRAGMA wal_checkpoint(RESTART)").raw(true);
  for (let tries = 1;; tries++) {
    const [busy] = statement.get([]) as [number];
    if (busy === 0) return { frames, copied, restarted: true };
    if (tries >= restart.tries) return { frames, copied, restarted: false };
    restart.pause?.();
  }
}
