/**
 * Many keys revoked in one transaction on libSQL: the UPDATE's trigger adds each feed row, and each revoked
 * key's audit entry follows in the same transaction.
 *
 * @module
 */
import type { Executor, SqlValue, Statement } from "../../core/db/mod.ts";
import { placeholders, text } from "../../core/db/mod.ts";
import type { RevocationReason } from "../../core/contract/mod.ts";
import { type AuditEntryInput, auditInsert } from "../audit/mod.ts";
import type { BulkRevocationStorage } from "./bulk_revocation_storage.ts";
import { endGrantsOfKeys, feedRevokedGrantKeys } from "./grant_revocation.ts";

/**
 * The bulk revokes on an executor.
 *
 * @param db The database.
 * @param forget Drops a revoked key's cached auth state (by hash) in this process.
 * @returns The bulk part of the key storage.
 */
export function bulkRevocationStorage(db: Executor, forget: (hash: string) => void): BulkRevocationStorage {
  async function revokeWhere(
    projectId: string,
    where: { sql: string; args: SqlValue[] },
    at: string,
    reason: RevocationReason,
    audit: (keyId: string) => AuditEntryInput,
    action?: (ids: readonly string[]) => AuditEntryInput,
    also?: Statement,
  ): Promise<string[]> {
    const rows = await db.transaction(async (tx) => {
      if (also) await tx.execute(also);
      const rs = await tx.execute({
        sql: `UPDATE cloud_keys SET revoke_reason = ?, revoked_at = ?
              WHERE project_id = ? AND revoked_at IS NULL AND ${where.sql} RETURNING id, hash`,
        args: [reason, at, projectId, ...where.args],
      });
      const revoked = rs.rows.map((row) => ({ id: text(row, "id"), hash: text(row, "hash") }));
      revoked.sort((a, b) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      for (const { id } of revoked) await tx.execute(auditInsert(audit(id)));
      if (action) await tx.execute(auditInsert(action(revoked.map((r) => r.id))));
      // The OAuth grants of the keys revoked end with them, and their other keys still active are revoked.
      let ended: string[] = [];
      for (const statement of endGrantsOfKeys(projectId, where, at)) {
        ended = (await tx.execute(statement)).rows.map((row) => text(row, "hash"));
      }
      return { revoked, ended };
    }, "write");
    for (const { hash } of rows.revoked) forget(hash);
    for (const hash of rows.ended) forget(hash);
    return rows.revoked.map((r) => r.id);
  }
  return {
    revokeKeys(projectId, ids, at, reason, audit) {
      if (ids.length === 0) return Promise.resolve([]);
      const selected = { sql: `id IN (${placeholders(ids.length)})`, args: [...ids] };
      // The keys of grants among them revoked already (replaced) reach the feed again: a hybrid app ends the grants.
      const fed = reason === "oauth" ? undefined : feedRevokedGrantKeys(projectId, selected, at, reason);
      return revokeWhere(projectId, selected, at, reason, audit, undefined, fed);
    },
    revokeUserKeys(projectId, userId, at, reason, audit, action) {
      // The user's watermark, in the same transaction: a mirror of an older key arriving later is stored revoked.
      const watermark: Statement = {
        sql: `INSERT INTO cloud_user_revocations (project_id, user_id, revoked_at, reason) VALUES (?, ?, ?, ?)
              ON CONFLICT (project_id, user_id) DO UPDATE SET revoked_at = excluded.revoked_at, reason = excluded.reason
              WHERE excluded.revoked_at >= cloud_user_revocations.revoked_at`,
        args: [projectId, userId, at, reason],
      };
      return revokeWhere(projectId, { sql: "user_id = ?", args: [userId] }, at, reason, audit, action, watermark);
    },
  };
}
