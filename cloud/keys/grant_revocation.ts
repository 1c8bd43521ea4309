/**
 * OAuth grants at the cloud (cloud mode keeps a grant's keys here; a hybrid app mirrors them with their grant):
 * revoking a key of a grant for any reason but `oauth` (the app's OAuth server, which ends its grants itself) ends
 * the grant and revokes its keys still active (reason `oauth`, each in the feed), in the revoking transaction; no key
 * is minted for an ended grant again, and one mirrored for it is stored revoked. A revoke of a key the grant already
 * replaced (revoked) writes a feed row all the same, with the revoke's reason: a hybrid app ends the grant on it.
 *
 * @module
 */
import { type SqlRow, type SqlValue, type Statement, text, type Transaction } from "../../core/db/mod.ts";
import type { RevocationReason } from "../../core/contract/mod.ts";
import type { MirroredKey, MirrorReason } from "./key_repository.ts";

/** Which of a project's keys were revoked: a condition on `cloud_keys` and its arguments. */
export interface RevokedKeys {
  /** SQL on the columns of `cloud_keys`, such as `id = ?`. */
  sql: string;
  /** Its arguments. */
  args: readonly SqlValue[];
}

/**
 * The statements that end the grants of keys (revoked by the statements before them, or revoked already) and revoke
 * the grants' keys still active; the second returns their hashes (for the auth cache).
 *
 * @param projectId The project.
 * @param keys The keys whose grants end.
 * @param at ISO 8601.
 * @returns The statements, in order.
 */
export function endGrantsOfKeys(projectId: string, keys: RevokedKeys, at: string): Statement[] {
  const grants = `SELECT grant_id FROM cloud_keys WHERE project_id = ? AND grant_id IS NOT NULL AND ${keys.sql}`;
  return [
    {
      sql: `INSERT INTO cloud_ended_grants (project_id, grant_id, ended_at)
            SELECT DISTINCT ?, grant_id, ? FROM (${grants}) WHERE true ON CONFLICT DO NOTHING`,
      args: [projectId, at, projectId, ...keys.args],
    },
    {
      sql: `UPDATE cloud_keys SET revoke_reason = 'oauth', revoked_at = ?
            WHERE project_id = ? AND revoked_at IS NULL AND grant_id IN (${grants}) RETURNING hash`,
      args: [at, projectId, projectId, ...keys.args],
    },
  ];
}

/**
 * The statement that writes a feed row, with the revoke's reason, for each key of the condition that belongs to a grant
 * and is revoked already (run before the revoking update: the trigger writes the rows of the keys it revokes).
 *
 * @param projectId The project.
 * @param keys The keys revoked.
 * @param at ISO 8601.
 * @param reason Why (never `oauth`: the app's own).
 * @returns The statement.
 */
export function feedRevokedGrantKeys(
  projectId: string,
  keys: RevokedKeys,
  at: string,
  reason: Exclude<RevocationReason, "oauth">,
): Statement {
  return {
    sql: `INSERT INTO cloud_revocations (project_id, seq, key_id, revoked_at, reason)
          SELECT ?, COALESCE((SELECT MAX(seq) FROM cloud_revocations WHERE project_id = ?), 0)
            + ROW_NUMBER() OVER (ORDER BY id), id, ?, ?
          FROM cloud_keys WHERE project_id = ? AND grant_id IS NOT NULL AND revoked_at IS NOT NULL AND ${keys.sql}`,
    args: [projectId, projectId, at, reason, projectId, ...keys.args],
  };
}

/**
 * The grant a key is mirrored for, when it has ended here (`ended_at`), else no row.
 *
 * @param projectId The project.
 * @param grantId The grant.
 * @returns The statement.
 */
export function endedGrant(projectId: string, grantId: string): Statement {
  return {
    sql: "SELECT ended_at FROM cloud_ended_grants WHERE project_id = ? AND grant_id = ?",
    args: [projectId, grantId],
  };
}

/**
 * The condition of minting a key for a grant: the grant has not ended here.
 *
 * @param projectId The project.
 * @param grantId The grant.
 * @returns The condition.
 */
export function grantHolds(projectId: string, grantId: string): RevokedKeys {
  return {
    sql: "NOT EXISTS (SELECT 1 FROM cloud_ended_grants WHERE project_id = ? AND grant_id = ?)",
    args: [projectId, grantId],
  };
}

/** How long a key a grant replaced is kept after its revocation, in milliseconds (then it is deleted). */
const REPLACED_KEY_GRACE_MS = 3_600_000;

/**
 * The statements that go with the insert of a grant's key: its `grant_id`, and the deletion of the grant's keys
 * revoked an hour or more before.
 *
 * @param projectId The project.
 * @param id The key.
 * @param grantId Its grant.
 * @param createdAt When it was minted, ISO 8601.
 * @returns The statements.
 */
export function grantKeyInserted(projectId: string, id: string, grantId: string, createdAt: string): Statement[] {
  const before = new Date(Date.parse(createdAt) - REPLACED_KEY_GRACE_MS).toISOString();
  return [
    { sql: "UPDATE cloud_keys SET grant_id = ? WHERE project_id = ? AND id = ?", args: [grantId, projectId, id] },
    {
      sql: `DELETE FROM cloud_keys WHERE project_id = ? AND grant_id = ? AND revoked_at IS NOT NULL
            AND revoked_at < ?`,
      args: [projectId, grantId, before],
    },
  ];
}

/**
 * A mirrored record of a grant's key as it is stored: active, for a grant ended here (`ended`: its row of
 * {@linkcode endedGrant}), it is revoked (reason `oauth`) when the grant ended, or at its creation if that came later.
 *
 * @param record The record, held to its user's watermark already.
 * @param ended The grant's ended row, if it ended here.
 * @returns The record to store.
 */
export function heldByGrant<T extends MirroredKey & { revokeReason: MirrorReason }>(
  record: T,
  ended: SqlRow | undefined,
): T {
  if (ended === undefined || record.revokedAt !== null) return record;
  const endedAt = text(ended, "ended_at");
  return { ...record, revokedAt: endedAt > record.createdAt ? endedAt : record.createdAt, revokeReason: "oauth" };
}

/**
 * What a hybrid app's mirror of a grant's key does once the key is stored, in the mirror's transaction: the key gets
 * its grant, the grant's keys revoked an hour before its creation are deleted, and when the key was created at or
 * before its user's revoke-all watermark the grant ends (it was alive then), whatever state the key arrives in: one
 * the grant already replaced, minted during an outage and refreshed since, reaches the feed with the revoke-all's
 * reason, so the app ends the grant too.
 *
 * @param tx The mirror's transaction.
 * @param projectId The project.
 * @param key The key as the app sent it, with its grant and whether this mirror stored it first.
 * @param watermark The user's watermark row (`revoked_at`, `reason`), if any.
 * @param at Now, ISO 8601.
 * @returns Whether the feed has a new row, and the hashes of the keys it revoked (for the auth cache).
 */
export async function mirroredGrantKey(
  tx: Transaction,
  projectId: string,
  key: MirroredKey & { grantId: string; stored: boolean },
  watermark: SqlRow | undefined,
  at: string,
): Promise<{ fed: boolean; hashes: string[] }> {
  for (const statement of grantKeyInserted(projectId, key.id, key.grantId, key.createdAt)) await tx.execute(statement);
  if (watermark === undefined || key.createdAt > text(watermark, "revoked_at")) return { fed: false, hashes: [] };
  const self = { sql: "id = ?", args: [key.id] };
  const reason = text(watermark, "reason") as Exclude<MirrorReason, "oauth">;
  const fed = key.stored && key.revokedAt !== null;
  if (fed) await tx.execute(feedRevokedGrantKeys(projectId, self, at, reason));
  const [end, revoke] = endGrantsOfKeys(projectId, self, at);
  await tx.execute(end);
  const revoked = await tx.execute(revoke);
  return { fed: fed || revoked.rows.length > 0, hashes: revoked.rows.map((row) => text(row, "hash")) };
}
