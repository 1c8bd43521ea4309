/**
 * The revocation feed and the auto-revoke policy on libSQL. The feed's rows
 * are written by the triggers of migration 6, in the transaction of the
 * statement that revokes.
 *
 * @module
 */
import type { Executor, SqlRow } from "../../core/db/mod.ts";
import { autoRevokedViolation } from "../../core/contract/mod.ts";
import type { Revocation, RevocationReason } from "../../core/contract/mod.ts";
import { countTowardAutoRevoke, insertViolation } from "../../core/violations/mod.ts";
import { integer, parsed, text, textOrNull } from "../../core/db/mod.ts";
import type { RevocationStorage } from "./revocation_storage.ts";
import { auditInsert } from "../audit/mod.ts";
import { audited } from "../projects/mod.ts";

/**
 * Feed and policy queries on an executor.
 *
 * @param db The database.
 * @returns The revocation part of the storage.
 */
export function revocationStorage(db: Executor): RevocationStorage {
  return {
    async latestRevocationSeq() {
      const rs = await db.execute("SELECT COALESCE(MAX(seq), 0) AS latest FROM cloud_revocations");
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
    async projectPolicy(projectId) {
      const rs = await db.execute({
        sql: "SELECT auto_revoke, retention_ms FROM cloud_project_settings WHERE project_id = ?",
        args: [projectId],
      });
      if (rs.rows.length === 0) return { autoRevoke: null, retentionMs: null };
      const row = rs.rows[0];
      const retention = textOrNull(row, "retention_ms");
      return {
        autoRevoke: textOrNull(row, "auto_revoke") === null ? null : parsed(row, "auto_revoke"),
        retentionMs: retention === null ? null : Number(retention),
      };
    },
    async setAutoRevoke(projectId, policy, at, audit) {
      const rs = await audited(db, audit, {
        sql: `INSERT INTO cloud_project_settings (project_id, auto_revoke, updated_at)
              SELECT id, ?, ? FROM cloud_projects WHERE id = ?
              ON CONFLICT (project_id) DO UPDATE SET auto_revoke = excluded.auto_revoke, updated_at = excluded.updated_at`,
        args: [policy === null ? null : JSON.stringify(policy), at, projectId],
      });
      return rs.rowsAffected === 1;
    },
    autoRevoke(projectId, keyId, policy, at) {
      const violations = { table: "cloud_violations", projectId };
      return db.transaction(async (tx) => {
        const key = await tx.execute({
          sql: "SELECT user_id FROM cloud_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL",
          args: [keyId, projectId],
        });
        if (key.rows.length === 0) return null;
        // The one counting rule of both sides: a coalesced report of N repeats counts N.
        const counted = await tx.execute(countTowardAutoRevoke(violations, keyId, policy, at));
        const count = integer(counted.rows[0], "n");
        if (count < policy.threshold) return null;
        const reason: RevocationReason = "auto";
        await tx.execute({
          sql: `UPDATE cloud_keys SET revoke_reason = ?, revoked_at = ?
                WHERE project_id = ? AND id = ? AND revoked_at IS NULL`,
          args: [reason, at, projectId, keyId],
        });
        const violation = autoRevokedViolation({ keyId, userId: text(key.rows[0], "user_id") }, policy, count);
        await tx.execute(insertViolation(violations, violation));
        await tx.execute(auditInsert({
          projectId,
          actor: "system",
          action: "key.revoke",
          target: keyId,
          detail: { reason, count, threshold: policy.threshold },
          sourceAddress: null,
          createdAt: at,
        }));
        return { revokedAt: at, count, violation };
      }, "write");
    },
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
