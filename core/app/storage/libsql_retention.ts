/**
 * The app side's retention on libSQL: old violations, and the outbox's
 * set-aside and surplus violation reports, deleted in short chunks so that a
 * large purge never holds the write lock for long. Key records in the outbox
 * are never deleted here.
 *
 * @module
 */
import type { Executor } from "../../db/mod.ts";
import { deleteInChunks } from "../../db/mod.ts";
import type { OutboxPurge } from "./app_storage.ts";

/**
 * Deletes violations made before `before`.
 *
 * @param db The app's database.
 * @param before ISO 8601.
 * @returns How many were deleted.
 */
export function purgeViolations(db: Executor, before: string): Promise<number> {
  // Every match goes, in any order: no ORDER BY, so the search runs on app_violations_by_time.
  return deleteInChunks(db, { table: "app_violations", where: "created_at < ?", args: [before] });
}

/**
 * Deletes the outbox's set-aside violation reports and activity records made before `setAsideBefore`,
 * then, while more than `limit` of them remain, the oldest set-aside ones, then the oldest waiting ones. Key records
 * and approval steps stay (few, and each one matters).
 *
 * @param db The app's database.
 * @param options The cut-off time and the bound.
 * @returns How many were deleted for their age (`expired`) and over the bound (`dropped`).
 */
export async function purgeOutbox(db: Executor, options: OutboxPurge): Promise<{ expired: number; dropped: number }> {
  const { setAsideBefore, limit } = options;
  const table = "app_outbox";
  const bounded = "kind IN ('violation', 'activity')";
  const setAside = `${bounded} AND refused IS NOT NULL`;
  const waiting = `${bounded} AND refused IS NULL`;
  const old = `${setAside} AND created_at < ?`;
  const expired = await deleteInChunks(db, { table, where: old, args: [setAsideBefore] });
  const rs = await db.execute(`SELECT COUNT(*) AS n FROM app_outbox WHERE ${bounded}`);
  const excess = Number(rs.rows[0].n) - limit;
  let dropped = 0;
  const oldest = { table, args: [], orderBy: "seq" };
  if (excess > 0) dropped = await deleteInChunks(db, { ...oldest, where: setAside, most: excess });
  if (excess > dropped) dropped += await deleteInChunks(db, { ...oldest, where: waiting, most: excess - dropped });
  return { expired, dropped };
}
