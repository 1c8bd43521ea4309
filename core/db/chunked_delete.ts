/**
 * Deleting many rows without holding the write lock for long: a chunk of rows per statement.
 *
 * @module
 */
import type { Executor, SqlValue } from "./executor.ts";

/** Rows deleted per statement, so a large purge never holds the write lock for long. */
export const DELETE_CHUNK = 1000;

/** What {@linkcode deleteInChunks} deletes. */
export interface RowsToDelete {
  /** The table. */
  table: string;
  /**
   * The columns that name a row: default `rowid`; a `WITHOUT ROWID` table's primary key (such as `"user_id, id"`),
   * which `where` should bound from its first column so that each chunk is found through the key.
   */
  key?: string;
  /** The condition on its rows, with `?` for `args`. */
  where: string;
  /** The condition's values. */
  args?: readonly SqlValue[];
  /** At most this many rows. Default: every match. */
  most?: number;
  /**
   * Which rows go first when `most` cuts (the terms of an ORDER BY, such as `"rowid"`). Default: any order,
   * so the search may use whatever index serves `where`.
   */
  orderBy?: string;
}

/**
 * Deletes the rows matching a condition, {@linkcode DELETE_CHUNK} per statement, until none is left or
 * `most` are gone.
 *
 * @param db The database.
 * @param rows The table, the condition and its values, the bound and the order.
 * @returns How many rows were deleted.
 *
 * @example Delete violations older than a day
 * ```ts ignore
 * const before = new Date(Date.now() - 24 * 60 * 60 * 1000).toISOString();
 * const deleted = await deleteInChunks(db, { table: "app_violations", where: "created_at < ?", args: [before] });
 * ```
 */
export async function deleteInChunks(db: Executor, rows: RowsToDelete): Promise<number> {
  const { table, where, args = [], most = Infinity, key = "rowid" } = rows;
  const order = rows.orderBy === undefined ? "" : `ORDER BY ${rows.orderBy}`;
  let deleted = 0;
  while (deleted < most) {
    const chunk = Math.min(DELETE_CHUNK, most - deleted);
    const rs = await db.execute({
      sql: `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} ${order} LIMIT ?)`,
      args: [...args, chunk],
    });
    deleted += rs.rowsAffected;
    if (rs.rowsAffected < chunk) break;
  }
  return deleted;
}
