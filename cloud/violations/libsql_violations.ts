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
  "cloud_violation_reports",
];

/** The violation part of {@linkcode ViolationRepository}. */
export type ViolationStorage = Pick<
  ViolationRepository,
  "addViolation" | "addViolations" | "addReports" | "listViolations" | "purgeViolations"
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
    async addReports(projectId, reports) {
      const statements: Statement[] = [];
      /** Per report, the statement that reads the id of the violation holding it (none without a report id). */
      const reads: (number | null)[] = [];
      for (const { violation, reportId } of reports) {
        const table = { table: "cloud_violations", projectId };
        if (reportId === null) {
          statements.push(insertViolation(table, violation));
          reads.push(null);
          continue;
        }
        const key = [projectId, reportId];
        statements.push(
          {
            sql: `INSERT INTO cloud_violation_reports (project_id, report_id, violation_id, created_at)
              VALUES (?, ?, ?, ?) ON CONFLICT (project_id, report_id) DO NOTHING`,
            args: [...key, violation.id, violation.createdAt],
          },
          // Stored only when the row just written names this violation: a repeat finds the first's id there.
          insertViolation(table, violation, {
            sql: `EXISTS (SELECT 1 FROM cloud_violation_reports WHERE project_id = ? AND report_id = ?
              AND violation_id = ?)`,
            args: [...key, violation.id],
          }),
          {
            sql: "SELECT violation_id AS id FROM cloud_violation_reports WHERE project_id = ? AND report_id = ?",
            args: key,
          },
        );
        reads.push(statements.length - 1);
      }
      // A single report joins the group commit; a batch is its own transaction.
      const results = reports.length === 1 ? await group.write(statements) : await db.batch(statements, "write");
      return reports.map(({ violation }, i) => {
        const read = reads[i];
        if (read === null) return { id: violation.id, duplicate: false };
        const id = String(results[read].rows[0].id);
        return { id, duplicate: id !== violation.id };
      });
    },
    async purgeViolations(before) {
      await deleteInChunks(db, { table: "cloud_violation_reports", where: "created_at < ?", args: [before] });
      return await deleteInChunks(db, { table: "cloud_violations", where: "created_at < ?", args: [before] });
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
