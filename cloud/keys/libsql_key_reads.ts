/**
 * What an operator reads of a project's keys on libSQL: keys across users, one key, counts by state.
 *
 * @module
 */
import type { Executor, SqlValue } from "../../core/db/mod.ts";
import { integer } from "../../core/db/mod.ts";
import { KEY_COLUMNS, selectKeyById, toKey } from "../../core/keys/mod.ts";
import { type KeyReads, prefixRange } from "./key_query.ts";

/**
 * The operator's key queries on an executor.
 *
 * @param db The database.
 * @returns The key reads.
 */
export function keyReads(db: Executor): KeyReads {
  return {
    async listProjectKeys(projectId, query) {
      const clauses = ["project_id = ?"];
      const args: SqlValue[] = [projectId];
      if (query.userId !== undefined) {
        clauses.push("user_id = ?");
        args.push(query.userId);
      }
      if (query.search) {
        // Three ranges, each on its own index (by name, by start, by user): SQLite unions their rows.
        const { from, to } = prefixRange(query.search);
        clauses.push("((name >= ? AND name < ?) OR (start >= ? AND start < ?) OR (user_id >= ? AND user_id < ?))");
        args.push(from, to, from, to, from, to);
      }
      if (query.status !== undefined) clauses.push(`revoked_at IS ${query.status === "active" ? "" : "NOT "}NULL`);
      const where = clauses.join(" AND ");
      const [page, count] = await db.batch([
        {
          sql:
            `SELECT ${KEY_COLUMNS} FROM cloud_keys WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        { sql: `SELECT COUNT(*) AS total FROM cloud_keys WHERE ${where}`, args },
      ], "read");
      return { keys: page.rows.map(toKey), total: integer(count.rows[0], "total") };
    },
    async findProjectKey(projectId, id) {
      const rs = await db.execute(selectKeyById({ table: "cloud_keys", projectId }, id));
      return rs.rows.length ? toKey(rs.rows[0]) : null;
    },
    async countKeys(projectId) {
      const rs = await db.execute({
        sql: `SELECT COALESCE(SUM(revoked_at IS NULL), 0) AS active, COALESCE(SUM(revoked_at IS NOT NULL), 0) AS revoked
              FROM cloud_keys WHERE project_id = ?`,
        args: [projectId],
      });
      return { active: integer(rs.rows[0], "active"), revoked: integer(rs.rows[0], "revoked") };
    },
  };
}
