/**
 * Reading libSQL rows into plain values, the same on every backend
 * (`:memory:`, `file:` and Hrana over HTTP).
 *
 * @module
 */
import type { SqlRow as Row, SqlValue } from "./executor.ts";

/**
 * A text column.
 *
 * @param row The row.
 * @param column The column name.
 * @returns The value as a string.
 */
export function text(row: Row, column: string): string {
  return String(row[column]);
}

/**
 * A nullable text column.
 *
 * @param row The row.
 * @param column The column name.
 * @returns The string, or `null`.
 */
export function textOrNull(row: Row, column: string): string | null {
  const value = row[column];
  return value === null || value === undefined ? null : String(value);
}

/**
 * An integer column.
 *
 * @param row The row.
 * @param column The column name.
 * @returns The value as a number.
 */
export function integer(row: Row, column: string): number {
  return Number(row[column]);
}

/**
 * A column holding JSON text.
 *
 * @param row The row.
 * @param column The column name.
 * @returns The parsed value.
 */
export function parsed<T>(row: Row, column: string): T {
  return JSON.parse(String(row[column])) as T;
}

/**
 * `?, ?, ?` for an `IN (…)` list.
 *
 * @param count How many placeholders.
 * @returns The placeholders joined by commas.
 */
export function placeholders(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}

/**
 * The `WHERE` conditions of a filtered list: each given column equal to its
 * value (absent values are no condition), and `created_at` at or after `since`.
 *
 * @param equal Column → value; `undefined` values are left out.
 * @param since An inclusive lower bound on `created_at`, if any.
 * @returns The conditions joined with `AND` (`"1"` when none) and their arguments.
 */
export function listFilter(
  equal: Record<string, SqlValue | undefined>,
  since?: string,
): { where: string; args: SqlValue[] } {
  const clauses: string[] = [];
  const args: SqlValue[] = [];
  for (const [column, value] of Object.entries(equal)) {
    if (value === undefined) continue;
    clauses.push(`${column} = ?`);
    args.push(value);
  }
  if (since !== undefined) {
    clauses.push("created_at >= ?");
    args.push(since);
  }
  return { where: clauses.length ? clauses.join(" AND ") : "1", args };
}
