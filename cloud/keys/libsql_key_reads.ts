/**
 * What an operator reads of a project's keys on libSQL: keys across users, one key, counts by state.
 *
 * @module
 */
import type { Executor, SqlValue, Statement } from "../../core/db/mod.ts";
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
      if (query.search) {
        const { page, count } = keySearchStatements(projectId, query);
        const [rows, total] = await db.batch([page, count], "read");
        return { keys: rows.rows.map(toKey), total: integer(total.rows[0], "total") };
      }
      const { where, args } = projectKeysFilter(projectId, query);
      // Without a user or a search, the total is the project's kept count (no scan of its keys).
      const kept = query.userId === undefined;
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
 * The `WHERE` of a page of a project's keys without a search: its user and its status.
 *
 * @param projectId The project.
 * @param query The filters.
 * @returns The condition over `cloud_keys` and its arguments.
 * @example One user's active keys
 * ```ts
 * const { where, args } = projectKeysFilter("prj_1", { userId: "alice", status: "active", limit: 50, offset: 0 });
 * ```
 */
export function projectKeysFilter(projectId: string, query: KeyQuery): { where: string; args: SqlValue[] } {
  const clauses = ["project_id = ?"];
  const args: SqlValue[] = [projectId];
  if (query.userId !== undefined) {
    clauses.push("user_id = ?");
    args.push(query.userId);
  }
  if (query.status !== undefined) clauses.push(`revoked_at IS ${query.status === "active" ? "" : "NOT "}NULL`);
  return { where: clauses.join(" AND "), args };
}

/**
 * The page and the count of a search: the union of three index ranges (name, start, user), each index holding
 * the status and the order, so the page's keys are chosen from the indexes alone and only they are read.
 *
 * @param projectId The project.
 * @param query The filters, with `search`.
 * @returns The page's statement (rows in {@linkcode KEY_COLUMNS}) and the count's (`total`).
 * @example A search's statements
 * ```ts
 * const { page, count } = keySearchStatements("prj_1", { search: "bill", limit: 50, offset: 0 });
 * ```
 */
export function keySearchStatements(projectId: string, query: KeyQuery): { page: Statement; count: Statement } {
  const { from, to } = prefixRange(query.search ?? "");
  const { where, args } = projectKeysFilter(projectId, { ...query, search: undefined });
  // UNION, not UNION ALL: a key whose name and user both match is one match.
  const matches = ["name", "start", "user_id"].map((column) =>
    `SELECT seq, created_at, id FROM cloud_keys WHERE ${where} AND ${column} >= ? AND ${column} < ?`
  ).join(" UNION ");
  const matchArgs = [0, 1, 2].flatMap(() => [...args, from, to]);
  return {
    page: {
      sql: `SELECT ${KEY_COLUMNS} FROM cloud_keys WHERE seq IN (
              SELECT seq FROM (${matches}) ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?)
            ORDER BY created_at DESC, id DESC`,
      args: [...matchArgs, query.limit, query.offset],
    },
    count: { sql: `SELECT COUNT(*) AS total FROM (${matches})`, args: matchArgs },
  };
}
