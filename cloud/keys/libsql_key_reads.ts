/**
 * What an operator reads of a project's keys on libSQL: keys across users, one key, counts by state.
 *
 * @module
 */
import type { Executor, SqlValue } from "../../core/db/mod.ts";
import { integer } from "../../core/db/mod.ts";
import { KEY_COLUMNS, selectKeyById, toKey } from "../../core/keys/mod.ts";
import { type KeyQuery, type KeyReads, prefixRange } from "./key_query.ts";

/**
 * The operator's key queries on an executor.
 *
 * @param db The database.
 * @returns The key reads.
 */
export function keyReads(db: Executor): KeyReads {
  return {
    async listProjectKeys(projectId, query) {
      const { where, args } = projectKeysFilter(projectId, query);
      // Without a user or a search, the total is the project's kept count (no scan of its keys).
      const kept = query.userId === undefined && !query.search;
      const column = query.status === undefined ? "active + revoked" : query.status;
      const [page, count] = await db.batch([
        {
          sql:
            `SELECT ${KEY_COLUMNS} FROM cloud_keys WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        kept
          ? {
            sql: `SELECT COALESCE((SELECT ${column} FROM cloud_key_counts WHERE project_id = ?), 0) AS total`,
            args: [projectId],
          }
          : { sql: `SELECT COUNT(*) AS total FROM cloud_keys WHERE ${where}`, args },
      ], "read");
      return { keys: page.rows.map(toKey), total: integer(count.rows[0], "total") };
    },
    async findProjectKey(projectId, id) {
      const rs = await db.execute(selectKeyById({ table: "cloud_keys", projectId }, id));
      return rs.rows.length ? toKey(rs.rows[0]) : null;
    },
    async countKeys(projectId) {
      const rs = await db.execute({
        sql: "SELECT active, revoked FROM cloud_key_counts WHERE project_id = ?",
        args: [projectId],
      });
      return rs.rows.length
        ? { active: integer(rs.rows[0], "active"), revoked: integer(rs.rows[0], "revoked") }
        : { active: 0, revoked: 0 };
    },
  };
}

/**
 * The `WHERE` of a page of a project's keys: its user, its search (three index ranges) and its status.
 *
 * @param projectId The project.
 * @param query The filters.
 * @returns The condition over `cloud_keys` and its arguments.
 * @example The condition of a search
 * ```ts
 * const { where, args } = projectKeysFilter("prj_1", { search: "bill", limit: 50, offset: 0 });
 * ```
 */
export function projectKeysFilter(projectId: string, query: KeyQuery): { where: string; args: SqlValue[] } {
  const clauses: string[] = [];
  const args: SqlValue[] = [];
  if (query.search) {
    // Three ranges, each on its own index (by name, by start, by user), as rowids; the project is named in
    // each range only, so the planner cannot prefer walking the project's keys in date order instead.
    const { from, to } = prefixRange(query.search);
    const range = (column: string) =>
      `SELECT seq FROM cloud_keys WHERE project_id = ? AND ${column} >= ? AND ${column} < ?`;
    clauses.push(`seq IN (${range("name")} UNION ALL ${range("start")} UNION ALL ${range("user_id")})`);
    for (let i = 0; i < 3; i++) args.push(projectId, from, to);
    if (query.userId !== undefined) {
      clauses.push("user_id = ?");
      args.push(query.userId);
    }
  } else {
    clauses.push(query.userId === undefined ? "project_id = ?" : "project_id = ? AND user_id = ?");
    args.push(projectId, ...query.userId === undefined ? [] : [query.userId]);
  }
  if (query.status !== undefined) clauses.push(`revoked_at IS ${query.status === "active" ? "" : "NOT "}NULL`);
  return { where: clauses.join(" AND "), args };
}
