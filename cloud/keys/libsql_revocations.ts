/**
 * The revocation feed on libSQL, and the statements another feature's transaction uses to revoke a key. The
 * feed's rows are written by the triggers of migration 6, in the transaction of the statement that revokes.
 *
 * @module
 */
import type { Executor, SqlRow, Statement } from "../../core/db/mod.ts";
import type { Revocation, RevocationReason } from "../../core/contract/mod.ts";
import { integer, text } from "../../core/db/mod.ts";
import type { RevocationStorage } from "./revocation_storage.ts";

/**
 * Feed queries on an executor.
 *
 * @param db The database.
 * @returns The revocation feed.
 */
export function revocationStorage(db: Executor): RevocationStorage {
  return {
    async latestRevocationSeq() {
      const rs = await db.execute("SELECT COALESCE(MAX(seq), 0) AS latest FROM cloud_revocations");
      return integer(rs.rows[0], "latest");
    },
    async revocationsByReason() {
      const rs = await db.execute(
        `SELECT r.project_id, r.reason, COUNT(*) AS n, p.latest FROM cloud_revocations r
         JOIN (SELECT project_id, MAX(seq) AS latest FROM cloud_revocations GROUP BY project_id) p
           ON p.project_id = r.project_id
         GROUP BY r.project_id, r.reason`,
      );
      return rs.rows.map((row) => ({
        projectId: text(row, "project_id"),
        reason: text(row, "reason"),
        count: integer(row, "n"),
        latestSeq: integer(row, "latest"),
      }));
    },
    async projectRevocationSeq(projectId) {
      const rs = await db.execute({
        sql: "SELECT COALESCE(MAX(seq), 0) AS latest FROM cloud_revocations WHERE project_id = ?",
        args: [projectId],
      });
      return integer(rs.rows[0], "latest");
    },
    async listRevocations(projectId, after, limit) {
      const rs = await db.execute({
        sql: `SELECT seq, key_id, revoked_at, reason FROM cloud_revocations
              WHERE project_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
        args: [projectId, after, limit],
      });
      return rs.rows.map(toRevocation);
    },
  };
}

/**
 * The statement that reads the user of an active key (no row when revoked or not the project's).
 *
 * @param projectId The project.
 * @param keyId The key.
 * @returns A statement whose row has `user_id`.
 */
export function activeKeyUser(projectId: string, keyId: string): Statement {
  return {
    sql: "SELECT user_id FROM cloud_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
    args: [keyId, projectId],
  };
}

/**
 * The statement that revokes an active key (its feed row written by the trigger), for another feature's transaction.
 *
 * @param projectId The project.
 * @param keyId The key.
 * @param reason Why.
 * @param at ISO 8601.
 * @returns The statement.
 */
export function keyRevoke(projectId: string, keyId: string, reason: RevocationReason, at: string): Statement {
  return {
    sql: `UPDATE cloud_keys SET revoke_reason = ?, revoked_at = ?
                WHERE project_id = ? AND id = ? AND revoked_at IS NULL`,
    args: [reason, at, projectId, keyId],
  };
}

function toRevocation(row: SqlRow): Revocation {
  return {
    seq: integer(row, "seq"),
    keyId: text(row, "key_id"),
    revokedAt: text(row, "revoked_at"),
    reason: text(row, "reason") as RevocationReason,
  };
}
