/**
 * The approvals' SQL on the app's database (table `app_approvals`): every status change is one conditional UPDATE
 * from `pending`, so two processes deciding one approval on one database file see one of them win.
 *
 * @module
 */
import type { ApprovalStatus } from "../contract/mod.ts";
import type { Executor, SqlRow } from "../db/mod.ts";

/** An approval as stored: the payload and the result are JSON texts that never leave the app. */
export interface ApprovalRow {
  /** `apr_` + ULID. */
  id: string;
  /** The key that asked. */
  keyId: string;
  /** Its name when it asked. */
  keyName: string;
  /** The key's user, who decides. */
  userId: string;
  /** The key's agent id. */
  agentId: string | null;
  /** The intent waiting. */
  intent: string;
  /** Its title. */
  title: string;
  /** The validated payload, as JSON. */
  payload: string;
  /** Where it stands. */
  status: ApprovalStatus;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  expiresAt: string;
  /** ISO 8601, `null` while pending. */
  decidedAt: string | null;
  /** A denial's reason. */
  reason: string | null;
  /** The handler's result, as JSON, once it ran. */
  result: string | null;
  /** The handler's failure, as JSON `{ code, message }`, when it failed. */
  error: string | null;
}

const COLUMNS = "id, key_id, key_name, user_id, agent_id, intent, title, payload, status, created_at, expires_at, " +
  "decided_at, reason, result, error";

/** A pending approval whose time is up or whose key was revoked (in this database) ends, in one statement. */
const DUE = "(expires_at <= ? OR key_id IN (SELECT k.id FROM app_keys k WHERE k.id = app_approvals.key_id AND " +
  "k.revoked_at IS NOT NULL))";
const END_DUE = "status = CASE WHEN expires_at <= ? THEN 'expired' ELSE 'cancelled' END, " +
  "decided_at = CASE WHEN expires_at <= ? THEN expires_at ELSE ? END";

function toRow(r: SqlRow): ApprovalRow {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    id: String(r.id),
    keyId: String(r.key_id),
    keyName: String(r.key_name),
    userId: String(r.user_id),
    agentId: text(r.agent_id),
    intent: String(r.intent),
    title: String(r.title),
    payload: String(r.payload),
    status: String(r.status) as ApprovalStatus,
    createdAt: String(r.created_at),
    expiresAt: String(r.expires_at),
    decidedAt: text(r.decided_at),
    reason: text(r.reason),
    result: text(r.result),
    error: text(r.error),
  };
}

/** The approvals' storage. */
export interface ApprovalStore {
  /** Stores a new pending approval unless its key has `max` pending already; `false` then. */
  insert(row: ApprovalRow, max: number, now: string): Promise<boolean>;
  /** One approval, by id. */
  find(id: string): Promise<ApprovalRow | null>;
  /** The user's approvals, newest first (at most `limit`), of one status or all. */
  list(userId: string, status: ApprovalStatus | undefined, limit: number): Promise<ApprovalRow[]>;
  /** Ends the pending approvals (of one, or of a user) that expired or whose key was revoked; returns them. */
  endDue(now: string, scope: { id: string } | { userId: string }): Promise<ApprovalRow[]>;
  /** Moves a pending, unexpired approval of the user to `status`; `null` when it was not pending (or not theirs). */
  decide(
    id: string,
    userId: string,
    status: "approved" | "denied",
    now: string,
    reason: string | null,
  ): Promise<ApprovalRow | null>;
  /** Cancels the pending approvals of these keys; returns them. */
  cancelForKeys(keyIds: readonly string[], now: string): Promise<ApprovalRow[]>;
  /** Expires every pending approval whose time is up; returns them. */
  expireDue(now: string): Promise<ApprovalRow[]>;
  /** Deletes up to `limit` approvals no longer pending that expired before `before`; how many. */
  purge(before: string, limit: number): Promise<number>;
  /** Keeps what the handler answered (`result`) or how it failed (`error`), as JSON. */
  saveOutcome(id: string, outcome: { result: string } | { error: string }): Promise<void>;
}

/**
 * The approvals' storage on the app's database.
 *
 * @param db The app's database, migrated.
 * @returns The storage.
 */
export function approvalStore(db: Executor): ApprovalStore {
  return {
    async insert(row, max, now) {
      const rs = await db.execute({
        sql: `INSERT INTO app_approvals (${COLUMNS})
          SELECT ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, NULL, NULL, NULL, NULL
          WHERE (SELECT COUNT(*) FROM app_approvals
                 WHERE key_id = ? AND status = 'pending' AND expires_at > ?) < ?`,
        args: [
          row.id,
          row.keyId,
          row.keyName,
          row.userId,
          row.agentId,
          row.intent,
          row.title,
          row.payload,
          row.createdAt,
          row.expiresAt,
          row.keyId,
          now,
          max,
        ],
      });
      return rs.rowsAffected === 1;
    },
    async find(id) {
      const rs = await db.execute({ sql: `SELECT ${COLUMNS} FROM app_approvals WHERE id = ?`, args: [id] });
      return rs.rows.length ? toRow(rs.rows[0]) : null;
    },
    async list(userId, status, limit) {
      const rs = await db.execute({
        sql: `SELECT ${COLUMNS} FROM app_approvals WHERE user_id = ?${status ? " AND status = ?" : ""}
          ORDER BY created_at DESC, id DESC LIMIT ?`,
        args: status ? [userId, status, limit] : [userId, limit],
      });
      return rs.rows.map(toRow);
    },
    async endDue(now, scope) {
      const [column, value] = "id" in scope ? ["id", scope.id] : ["user_id", scope.userId];
      const rs = await db.execute({
        sql: `UPDATE app_approvals SET ${END_DUE} WHERE ${column} = ? AND status = 'pending' AND ${DUE}
          RETURNING ${COLUMNS}`,
        args: [now, now, now, value, now],
      });
      return rs.rows.map(toRow);
    },
    async decide(id, userId, status, now, reason) {
      const rs = await db.execute({
        sql: `UPDATE app_approvals SET status = ?, decided_at = ?, reason = ?
          WHERE id = ? AND user_id = ? AND status = 'pending' AND expires_at > ? RETURNING ${COLUMNS}`,
        args: [status, now, reason, id, userId, now],
      });
      return rs.rows.length ? toRow(rs.rows[0]) : null;
    },
    async cancelForKeys(keyIds, now) {
      if (keyIds.length === 0) return [];
      const rs = await db.execute({
        sql: `UPDATE app_approvals SET status = 'cancelled', decided_at = ?
          WHERE status = 'pending' AND key_id IN (SELECT value FROM json_each(?)) RETURNING ${COLUMNS}`,
        args: [now, JSON.stringify(keyIds)],
      });
      return rs.rows.map(toRow);
    },
    async expireDue(now) {
      const rs = await db.execute({
        sql: `UPDATE app_approvals SET status = 'expired', decided_at = expires_at
          WHERE status = 'pending' AND expires_at <= ? RETURNING ${COLUMNS}`,
        args: [now],
      });
      return rs.rows.map(toRow);
    },
    async purge(before, limit) {
      const rs = await db.execute({
        sql: `DELETE FROM app_approvals WHERE id IN (SELECT id FROM app_approvals
          WHERE status != 'pending' AND expires_at < ? LIMIT ?)`,
        args: [before, limit],
      });
      return rs.rowsAffected;
    },
    async saveOutcome(id, outcome) {
      const [column, value] = "result" in outcome ? ["result", outcome.result] : ["error", outcome.error];
      await db.execute({ sql: `UPDATE app_approvals SET ${column} = ? WHERE id = ?`, args: [value, id] });
    },
  };
}
