/**
 * The SQL of keys for both sides, on a table named by the caller: the app's `app_keys`, or the cloud's
 * `cloud_keys` scoped to one project (a `project_id` column written on insert and matched by every query).
 *
 * @module
 */
import type { KeyRecord } from "../contract/mod.ts";
import { placeholders, type SqlValue, type Statement } from "../db/mod.ts";
import { KEY_COLUMNS, keyValues } from "./key_rows.ts";

/** Where keys are stored: a table and, for a table shared by projects, the project every statement is scoped to. */
export interface KeyTable {
  /** The table, such as `app_keys` or `cloud_keys` (a name of the caller's, never user input). */
  table: string;
  /** The project of a `project_id` column; absent for a table of one app. */
  projectId?: string;
}

/** A condition and its arguments, such as an agentId claim that must exist for an insert. */
export interface Condition {
  /** SQL that is true when the statement may apply. */
  sql: string;
  /** Its arguments. */
  args: readonly SqlValue[];
}

function scope(t: KeyTable): { and: string; args: SqlValue[] } {
  return t.projectId === undefined ? { and: "", args: [] } : { and: " AND project_id = ?", args: [t.projectId] };
}

/**
 * Inserts a key; with a condition, only when the condition holds (`rowsAffected` tells).
 *
 * @example Insert into the app's table
 * ```ts
 * import { mintAgentKey } from "../contract/mod.ts";
 * import { insertKey } from "./key_sql.ts";
 *
 * const { record } = await mintAgentKey("alice", { name: "laptop", scopes: [], agentId: "alice" });
 * console.log(insertKey({ table: "app_keys" }, record).sql.startsWith("INSERT INTO app_keys")); // true
 * ```
 *
 * @param t The table.
 * @param record The key.
 * @param condition When the insert may apply.
 * @returns The statement.
 */
export function insertKey(t: KeyTable, record: KeyRecord, condition?: Condition): Statement {
  const project = t.projectId === undefined ? [] : [t.projectId];
  const columns = t.projectId === undefined ? KEY_COLUMNS : `project_id, ${KEY_COLUMNS}`;
  const values = [...project, ...keyValues(record)];
  const slots = placeholders(values.length);
  return condition === undefined ? { sql: `INSERT INTO ${t.table} (${columns}) VALUES (${slots})`, args: values } : {
    sql: `INSERT INTO ${t.table} (${columns}) SELECT ${slots} WHERE ${condition.sql}`,
    args: [...values, ...condition.args],
  };
}

/**
 * A user's keys, oldest first; an OAuth grant's keys once, by the one stored last (the keys it replaced are not
 * listed).
 *
 * @param t The table (with a `grant_id` column).
 * @param userId The user.
 * @returns The statement.
 */
export function selectKeysOfUser(t: KeyTable, userId: string): Statement {
  const s = scope(t);
  const sameProject = t.projectId === undefined ? "" : " AND n.project_id = k.project_id";
  return {
    sql: `SELECT ${KEY_COLUMNS} FROM ${t.table} k WHERE user_id = ?${s.and}
          AND (grant_id IS NULL OR NOT EXISTS (SELECT 1 FROM ${t.table} n WHERE n.grant_id = k.grant_id${sameProject}
            AND n.rowid > k.rowid))
          ORDER BY created_at, id`,
    args: [userId, ...s.args],
  };
}

/**
 * The key with a hash (in the project, when the table is scoped).
 *
 * @param t The table.
 * @param hash The secret's hash.
 * @returns The statement.
 */
export function selectKeyByHash(t: KeyTable, hash: string): Statement {
  const s = scope(t);
  return { sql: `SELECT ${KEY_COLUMNS} FROM ${t.table} WHERE hash = ?${s.and}`, args: [hash, ...s.args] };
}

/**
 * The key with an id (in the project, when the table is scoped).
 *
 * @param t The table.
 * @param id The key's id.
 * @returns The statement.
 */
export function selectKeyById(t: KeyTable, id: string): Statement {
  const s = scope(t);
  return { sql: `SELECT ${KEY_COLUMNS} FROM ${t.table} WHERE id = ?${s.and}`, args: [id, ...s.args] };
}

/**
 * Revokes a user's key, keeping the first revocation time; returns the key's row (none when the user has no such
 * key).
 *
 * @param t The table.
 * @param userId The key's owner.
 * @param id The key.
 * @param at Now, ISO 8601.
 * @returns The statement.
 */
export function revokeKeyOfUser(t: KeyTable, userId: string, id: string, at: string): Statement {
  const s = scope(t);
  return {
    sql: `UPDATE ${t.table} SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? AND user_id = ?${s.and}
          RETURNING ${KEY_COLUMNS}`,
    args: [at, id, userId, ...s.args],
  };
}

/**
 * Records a key's use, never moving `last_used_at` back; with `before`, only when the recorded use is older than it
 * (a use within an interval is not written again).
 *
 * @param t The table.
 * @param id The key.
 * @param at When it was used, ISO 8601.
 * @param before Write only when `last_used_at` is older than this, ISO 8601. Default `at`.
 * @returns The statement.
 */
export function touchKey(t: KeyTable, id: string, at: string, before: string = at): Statement {
  const s = scope(t);
  return {
    sql: `UPDATE ${t.table} SET last_used_at = ? WHERE id = ?${s.and} AND (last_used_at IS NULL OR last_used_at < ?)`,
    args: [at, id, ...s.args, before],
  };
}

/**
 * Schedules the revocation of a user's active key at `at` (a reroll's grace end); an earlier schedule is kept.
 * Returns the key's row (none when the user has no such key, or it is revoked).
 *
 * @param t The table.
 * @param userId The key's owner.
 * @param id The key.
 * @param at When the key stops working, ISO 8601.
 * @param condition When the schedule may apply (such as: its successor was stored).
 * @returns The statement.
 */
export function scheduleKeyRevocation(
  t: KeyTable,
  userId: string,
  id: string,
  at: string,
  condition?: Condition,
): Statement {
  const s = scope(t);
  return {
    sql: `UPDATE ${t.table} SET revokes_at = CASE WHEN revokes_at IS NULL OR revokes_at > ? THEN ? ELSE revokes_at END
          WHERE id = ? AND user_id = ?${s.and} AND revoked_at IS NULL${condition ? ` AND ${condition.sql}` : ""}
          RETURNING ${KEY_COLUMNS}`,
    args: [at, at, id, userId, ...s.args, ...condition?.args ?? []],
  };
}
