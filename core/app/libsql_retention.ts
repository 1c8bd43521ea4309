/**
 * The app side's retention on libSQL: old violations, and the outbox's
 * set-aside and surplus violation reports, deleted in short chunks so that a
 * large purge never holds the write lock for long. Key records in the outbox
 * are never deleted here.
 *
 * @module
 */
import type { Executor, SqlValue } from "../db/executor.ts";
import type { OutboxPurge } from "./app_storage.ts";

/** Rows deleted per statement. */
const PURGE_CHUNK = 1000;

/**
 * Deletes violations made before `before`.
 *
 * @param db The app's database.
 * @param before ISO 8601.
 * @returns How many were deleted.
 */
export function purgeViolations(db: Executor, before: string): Promise<number> {
  // Every match goes, in any order: no ORDER BY, so the search runs on app_violations_by_time.
  return deleteChunks(db, "app_violations", "created_at < ?", [before], Infinity, "");
}

/**
 * Deletes the outbox's set-aside violation reports made before `setAsideBefore`,
 * then, while more than `limit` violation reports remain, the oldest set-aside
 * ones, then the oldest waiting ones. Key records stay.
 *
 * @param db The app's database.
 * @param options The set-aside threshold, the cut-off time and the bound.
 * @returns How many were deleted for their age (`expired`) and over the bound (`dropped`).
 */
export async function purgeOutbox(db: Executor, options: OutboxPurge): Promise<{ expired: number; dropped: number }> {
  const { maxAttempts, setAsideBefore, limit } = options;
  const setAside = "kind <> 'key' AND attempts >= ?";
  const waiting = "kind <> 'key' AND attempts < ?";
  const expired = await deleteChunks(db, "app_outbox", `${setAside} AND created_at < ?`, [maxAttempts, setAsideBefore]);
  const rs = await db.execute("SELECT COUNT(*) AS n FROM app_outbox WHERE kind <> 'key'");
  const excess = Number(rs.rows[0].n) - limit;
  let dropped = 0;
  if (excess > 0) dropped = await deleteChunks(db, "app_outbox", setAside, [maxAttempts], excess);
  if (excess > dropped) dropped += await deleteChunks(db, "app_outbox", waiting, [maxAttempts], excess - dropped);
  return { expired, dropped };
}

/** Deletes rows matching `where`, at most `most`, oldest (by `seq`) first unless `order` says otherwise. */
async function deleteChunks(
  db: Executor,
  table: string,
  where: string,
  args: SqlValue[],
  most = Infinity,
  order = "ORDER BY seq",
): Promise<number> {
  let deleted = 0;
  while (deleted < most) {
    const chunk = Math.min(PURGE_CHUNK, most - deleted);
    const rs = await db.execute({
      sql: `DELETE FROM ${table} WHERE seq IN (SELECT seq FROM ${table} WHERE ${where} ${order} LIMIT ?)`,
      args: [...args, chunk],
    });
    deleted += rs.rowsAffected;
    if (rs.rowsAffected < chunk) break;
  }
  return deleted;
}
