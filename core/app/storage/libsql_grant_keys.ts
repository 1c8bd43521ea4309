/**
 * The keys of OAuth grants in the app's storage (local and hybrid modes): a grant is one thing with one key in
 * force. A key minted for a grant carries its `grant_id`; revoking any key of a grant (but by the OAuth server
 * itself, which ends its grants on its own) ends the grant and revokes its keys still active, in the revoking
 * transaction; the keys a grant replaced are deleted an hour after their revocation.
 *
 * @module
 */
import type { Statement, Transaction } from "../../db/mod.ts";
import type { KeyRecord } from "../../contract/mod.ts";

/** How long a key a grant replaced is kept after its revocation (for its violations and audit), in milliseconds. */
export const REPLACED_KEY_GRACE_MS = 3_600_000;

/**
 * The statements that go with the insert of a grant's key, in its batch: the key's `grant_id`, and the deletion of
 * the grant's keys revoked more than {@linkcode REPLACED_KEY_GRACE_MS} before it was minted (and sent to the cloud).
 *
 * @param record The key just inserted (nothing when it has no grant).
 * @returns The statements.
 */
export function grantKeyStatements(record: KeyRecord): Statement[] {
  if (!record.grantId) return [];
  const before = new Date(Date.parse(record.createdAt) - REPLACED_KEY_GRACE_MS).toISOString();
  return [
    { sql: "UPDATE app_keys SET grant_id = ? WHERE id = ?", args: [record.grantId, record.id] },
    {
      // Never one whose revocation still waits in the outbox for the cloud (hybrid mode).
      sql: `DELETE FROM app_keys WHERE grant_id = ? AND revoked_at IS NOT NULL AND revoked_at < ?
            AND id NOT IN (SELECT ref FROM app_outbox WHERE kind = 'key')`,
      args: [record.grantId, before],
    },
  ];
}

/**
 * Ends the grant of a key, if it has one, and revokes the grant's keys still active (reason `oauth`, queued for the
 * cloud with `mirror`), in the caller's transaction. The key itself may be revoked already: a revoke of a key the
 * grant replaced ends the grant all the same.
 *
 * @param tx The transaction.
 * @param keyId The key revoked.
 * @param at ISO 8601.
 * @param mirror Queue the keys it revokes for the cloud.
 * @returns The hashes of the keys it revoked (for the caller's key cache).
 */
export async function endGrantOfKey(tx: Transaction, keyId: string, at: string, mirror: boolean): Promise<string[]> {
  const found = await tx.execute({
    sql: "SELECT grant_id FROM app_keys WHERE id = ? AND grant_id IS NOT NULL",
    args: [keyId],
  });
  if (found.rows.length === 0) return [];
  const grantId = String(found.rows[0].grant_id);
  await tx.execute({
    sql: "UPDATE app_oauth_grants SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",
    args: [at, grantId],
  });
  const revoked = await tx.execute({
    sql: `UPDATE app_keys SET revoked_at = ?, revoke_reason = 'oauth' WHERE grant_id = ? AND revoked_at IS NULL
          RETURNING id, hash`,
    args: [at, grantId],
  });
  if (mirror) {
    for (const row of revoked.rows) {
      await tx.execute({
        sql: "INSERT INTO app_outbox (kind, ref, created_at) VALUES ('key', ?, ?)",
        args: [String(row.id), at],
      });
    }
  }
  return revoked.rows.map((row) => String(row.hash));
}
