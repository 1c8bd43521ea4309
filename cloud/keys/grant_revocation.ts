/**
 * OAuth grants at the cloud (cloud mode keeps a grant's keys here): revoking a key of a grant for any reason but
 * `oauth` (the app's OAuth server, which ends its grants itself) ends the grant and revokes its keys still active
 * (reason `oauth`, each in the feed), in the revoking transaction; no key is minted for an ended grant again.
 *
 * @module
 */
import type { SqlValue, Statement } from "../../core/db/mod.ts";

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
