/**
 * Violation reports on libSQL.
 *
 * @module
 */
import type { Executor, SqlValue, Statement } from "../../core/db/mod.ts";
import type { ViolationQuery, ViolationRepository } from "./violation_repository.ts";
import { integer, listFilter } from "../../core/db/mod.ts";
import { insertViolation, insertViolations, toViolation, VIOLATION_COLUMNS } from "../../core/violations/mod.ts";
import type { GroupCommit } from "../../core/db/mod.ts";
import { deleteInChunks } from "../../core/db/mod.ts";

/** Rows per multi-row INSERT (10 values each, far below SQLite's variable limit). */
const ROWS_PER_INSERT = 50;

/** The violations' tables holding a project's rows, children first: deleted with the project. */
export const VIOLATION_TABLES: readonly string[] = [
  "cloud_violations",
  "cloud_violation_counts",
  "cloud_violation_hours",
];

/** The violation part of {@linkcode ViolationRepository}. */
export type ViolationStorage = Pick<
  ViolationRepository,
  "addViolation" | "addViolations" | "listViolations" | "purgeViolations"
>;

/**
 * Violation queries on a database.
 *
 * @param db The database.
 * @param group Where single violations are written together with others arriving at the same time.
 * @returns The violation part of the storage.
 */
export function violationStorage(db: Executor, group: GroupCommit): ViolationStorage {
  return {
    async addViolation(projectId, v) {
      await group.write([insertViolation({ table: "cloud_violations", projectId }, v)]);
    },
    async addViolations(projectId, violations) {
      if (violations.length === 0) return;
      const statements: Statement[] = [];
      for (let at = 0; at < violations.length; at += ROWS_PER_INSERT) {
        statements.push(
          insertViolations({ table: "cloud_violations", projectId }, violations.slice(at, at + ROWS_PER_INSERT)),
        );
      }
      await db.batch(statements, "write");
    },
    purgeViolations(before) {
      return deleteInChunks(db, { table: "cloud_violations", where: "created_at < ?", args: [before] });
    },
    async listViolations(projectId, query) {
      const { where, args } = filter(projectId, query);
      // One read transaction, so the page and the total agree.
      const [page, count] = await db.batch([
        {
          sql:
            `SELECT ${VIOLATION_COLUMNS} FROM cloud_violations WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        totalOf(projectId, query, where, args),
      ], "read");
      return { violations: page.rows.map(toViolation), total: integer(count.rows[0], "total") };
    },
  };
}

/**
 * The statement that counts a page's matches: from the per-kind-and-severity
 * totals when only those filters apply (constant time at any size), else by
 * counting the index range of the filter.
 */
function totalOf(projectId: string, query: ViolationQuery, where: string, args: SqlValue[]): Statement {
  if (query.keyId !== undefined || query.since !== undefined) {
    return { sql: `SELECT COUNT(*) AS total FROM cloud_violations WHERE ${where}`, args };
  }
  const clauses = ["project_id = ?"];
  const countArgs: SqlValue[] = [projectId];
  for (const [column, value] of [["kind", query.kind], ["severity", query.severity]] as const) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    countArgs.push(value);
  }
  return {
    sql: `SELECT COALESCE(SUM(n), 0) AS total FROM cloud_violation_counts WHERE ${clauses.join(" AND ")}`,
    args: countArgs,
  };
}

function filter(projectId: string, query: ViolationQuery): { where: string; args: SqlValue[] } {
  const { keyId, kind, severity, since } = query;
  return listFilter({ project_id: projectId, key_id: keyId, kind, severity }, since);
}
