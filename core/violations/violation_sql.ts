/**
 * The SQL of violations for both sides, on a table named by the caller (the app's `app_violations`, or the
 * cloud's `cloud_violations` scoped to one project), and the one rule that counts a key's violations toward
 * an auto-revoke policy.
 *
 * @module
 */
import { type AutoRevokePolicy, countedBy, type Violation } from "../contract/mod.ts";
import { placeholders, type SqlValue, type Statement } from "../db/mod.ts";
import { VIOLATION_COLUMNS, violationValues } from "./violation_rows.ts";

/** Where violations are stored: a table and, for a table shared by projects, the project of every statement. */
export interface ViolationTable {
  /** The table, such as `app_violations` or `cloud_violations` (a name of the caller's, never user input). */
  table: string;
  /** The project of a `project_id` column; absent for a table of one app. */
  projectId?: string;
  /**
   * The keys' table (with `grant_id`), when the keys of an OAuth grant count together toward auto-revoke (a refresh
   * mints a new key: counted per key, a client refreshing would never reach the threshold).
   */
  keys?: string;
}

/**
 * How many violations a stored one stands for, in SQL over its `metadata` column: a coalesced summary of
 * repeated refusals (the contract's `repeatedViolation`: `metadata.first` a text, `metadata.repeats` an integer N)
 * stands for its N repeats, any other violation for 1. The same rule as {@linkcode violationWeight}.
 */
export const VIOLATION_WEIGHT_SQL = `CASE WHEN json_valid(metadata) AND json_type(metadata, '$.first') = 'text'
  AND json_type(metadata, '$.repeats') = 'integer' THEN json_extract(metadata, '$.repeats') ELSE 1 END`;

/**
 * How many violations one stands for: a coalesced summary of N repeated refusals counts N, any other 1 (the
 * rule {@linkcode VIOLATION_WEIGHT_SQL} applies in SQL).
 *
 * @example A summary of 4 repeats
 * ```ts
 * import { violationWeight } from "./violation_sql.ts";
 *
 * console.log(violationWeight({ metadata: { repeats: 4, since: "2026-01-01T00:00:00.000Z", first: "v1" } })); // 4
 * console.log(violationWeight({ metadata: {} })); // 1
 * ```
 *
 * @param v The violation's metadata.
 * @returns Its weight.
 */
export function violationWeight(v: Pick<Violation, "metadata">): number {
  const { first, repeats } = v.metadata;
  return typeof first === "string" && Number.isInteger(repeats) ? repeats as number : 1;
}

function scope(t: ViolationTable): { and: string; where: string; args: SqlValue[] } {
  return t.projectId === undefined
    ? { and: "", where: "", args: [] }
    : { and: " AND project_id = ?", where: "WHERE project_id = ?", args: [t.projectId] };
}

/**
 * Inserts a violation.
 *
 * @param t The table.
 * @param v The violation.
 * @param condition An SQL condition (with its arguments) the row is written under; without it, always.
 * @returns The statement.
 */
export function insertViolation(t: ViolationTable, v: Violation, condition?: Statement): Statement {
  const project = t.projectId === undefined ? [] : [t.projectId];
  const columns = t.projectId === undefined ? VIOLATION_COLUMNS : `project_id, ${VIOLATION_COLUMNS}`;
  const values = [...project, ...violationValues(v)];
  if (condition === undefined) {
    return { sql: `INSERT INTO ${t.table} (${columns}) VALUES (${placeholders(values.length)})`, args: values };
  }
  return {
    sql: `INSERT INTO ${t.table} (${columns}) SELECT ${placeholders(values.length)} WHERE ${condition.sql}`,
    args: [...values, ...condition.args ?? []],
  };
}

/**
 * Inserts several violations in one statement (one group of values each).
 *
 * @param t The table.
 * @param vs The violations, at least one.
 * @returns The statement.
 * @throws {RangeError} When `vs` is empty.
 */
export function insertViolations(t: ViolationTable, vs: readonly Violation[]): Statement {
  if (vs.length === 0) throw new RangeError("insertViolations needs at least one violation");
  const rows = vs.map((v) => insertViolation(t, v));
  const group = rows[0].sql.slice(rows[0].sql.indexOf(" VALUES ") + " VALUES ".length);
  return {
    sql: `${rows[0].sql.slice(0, rows[0].sql.indexOf(" VALUES "))} VALUES ${rows.map(() => group).join(", ")}`,
    args: rows.flatMap((r) => r.args ?? []),
  };
}

/**
 * The latest violations, newest first, of one key or all.
 *
 * @param t The table (with a `seq` column in insertion order).
 * @param options How many, and of which key.
 * @returns The statement.
 */
export function selectLatestViolations(t: ViolationTable, options: { limit: number; keyId?: string }): Statement {
  const s = scope(t);
  const key = options.keyId === undefined ? [] : [options.keyId];
  const where = [...(options.keyId === undefined ? [] : ["key_id = ?"]), ...(s.where ? ["project_id = ?"] : [])];
  return {
    sql: `SELECT ${VIOLATION_COLUMNS} FROM ${t.table} ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
          ORDER BY seq DESC LIMIT ?`,
    args: [...key, ...s.args, options.limit],
  };
}

/**
 * The one auto-revoke counting rule, for both sides: the weight ({@linkcode VIOLATION_WEIGHT_SQL}) of the key's
 * violations the policy counts (by kind or severity, `AUTO_REVOKED` never) made within its window before `at`. With
 * `t.keys`, a key of an OAuth grant counts with the grant's other keys, for what they did while in force (a use of a
 * replaced or expired key, `REVOKED_KEY` or `EXPIRED_KEY`, is not the grant's). The row has one column, `n`.
 *
 * @example The count for the app's table
 * ```ts
 * import { countTowardAutoRevoke } from "./violation_sql.ts";
 *
 * const statement = countTowardAutoRevoke({ table: "app_violations" }, "k1", {
 *   threshold: 5,
 *   windowMinutes: 10,
 * }, "2026-01-01T00:10:00.000Z");
 * console.log(statement.args?.slice(0, 2)); // ["k1", "2026-01-01T00:00:00.000Z"]
 * ```
 *
 * @param t The table.
 * @param keyId The key.
 * @param policy The policy.
 * @param at Now, ISO 8601.
 * @returns The statement.
 */
export function countTowardAutoRevoke(
  t: ViolationTable,
  keyId: string,
  policy: AutoRevokePolicy,
  at: string,
): Statement {
  const since = new Date(Date.parse(at) - policy.windowMinutes * 60_000).toISOString();
  const { kinds, severities } = countedBy(policy);
  const s = scope(t);
  const counted = `created_at >= ?${s.and} AND kind != 'AUTO_REVOKED'
            AND (kind IN (${placeholders(kinds.length)}) OR severity IN (${placeholders(severities.length)}))`;
  const countedArgs = [since, ...s.args, ...kinds, ...severities];
  if (t.keys === undefined) {
    return {
      sql: `SELECT COALESCE(SUM(${VIOLATION_WEIGHT_SQL}), 0) AS n FROM ${t.table} WHERE key_id = ? AND ${counted}`,
      args: [keyId, ...countedArgs],
    };
  }
  const sameProject = t.projectId === undefined ? "" : " AND g.project_id = v.project_id";
  const ofProject = t.projectId === undefined ? "" : " AND project_id = ?";
  return {
    sql: `SELECT COALESCE(SUM(${VIOLATION_WEIGHT_SQL}), 0) AS n FROM ${t.table} v WHERE ${counted}
          AND (key_id = ? OR kind NOT IN ('REVOKED_KEY', 'EXPIRED_KEY') AND EXISTS (SELECT 1 FROM ${t.keys} g
            WHERE g.id = v.key_id${sameProject} AND g.grant_id = (SELECT grant_id FROM ${t.keys} WHERE id = ?${ofProject})))`,
    args: [...countedArgs, keyId, keyId, ...s.args],
  };
}
