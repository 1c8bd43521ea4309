/**
 * Revokes written on libSQL: one key's revoke (its audit entry, the feed of a grant's replaced key, the revoke and
 * the end of its grant, in one batch), a rerolled key's scheduled revocation, and those revocations once due.
 *
 * @module
 */
import type { Executor, Statement } from "../../core/db/mod.ts";
import { text } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import type { KeyRepository } from "./key_repository.ts";
import { endGrantsOfKeys, feedRevokedGrantKeys } from "./grant_revocation.ts";
import { scheduledRevocations, writeDueRevocation } from "./libsql_key_lifecycle.ts";

/**
 * Revokes a project's key (see `KeyRepository.revokeKey`).
 *
 * @param db The database.
 * @param dropCached Forgets a hash's cached auth state.
 * @param args The repository's `revokeKey` arguments: project, id, time, reason, audit entry.
 * @returns When the key was revoked (the first time), or `null` when the project has no such key.
 */
export async function revokeKeyRow(
  db: Executor,
  dropCached: (hash: string) => void,
  ...[projectId, id, at, reason, audit]: Parameters<KeyRepository["revokeKey"]>
): Promise<string | null> {
  // The trigger `cloud_keys_revoked` adds the feed row in this statement's transaction, once; the audit
  // entry goes first in the same batch, written only when the key is the project's and still active.
  const active = {
    sql: "EXISTS (SELECT 1 FROM cloud_keys WHERE id = ? AND project_id = ? AND revoked_at IS NULL)",
    args: [id, projectId],
  };
  // Any revoke but the OAuth server's own ends the key's grant, if it has one, in the same transaction.
  const grant = reason === "oauth" ? [] : endGrantsOfKeys(projectId, { sql: "id = ?", args: [id] }, at);
  // A key the grant replaced (revoked already): the feed carries this revoke all the same, so a hybrid app,
  // which alone knows the grant's key in force, ends the grant.
  const fed = reason === "oauth" ? [] : [feedRevokedGrantKeys(projectId, { sql: "id = ?", args: [id] }, at, reason)];
  const results = await db.batch([
    ...audit ? [auditInsert(audit, active)] : [],
    ...fed,
    {
      sql: `UPDATE cloud_keys SET revoke_reason = CASE WHEN revoked_at IS NULL THEN ? ELSE revoke_reason END,
            revoked_at = COALESCE(revoked_at, ?)
          WHERE id = ? AND project_id = ? RETURNING revoked_at, hash`,
      args: [reason, at, id, projectId],
    },
    ...grant,
  ], "write");
  const rs = results[results.length - 1 - grant.length];
  if (rs.rows.length === 0) return null;
  dropCached(text(rs.rows[0], "hash"));
  if (grant.length) { for (const row of results[results.length - 1].rows) dropCached(text(row, "hash")); }
  return text(rs.rows[0], "revoked_at");
}

/**
 * Writes a project's scheduled revocations that are due (see `KeyRepository.writeDueRevocations`).
 *
 * @param db The database.
 * @param dropCached Forgets a hash's cached auth state.
 * @param args The repository's `writeDueRevocations` arguments: project, time, audit entry of each.
 * @returns How many were written, and when the next one is due.
 */
export async function writeDueRevocationRows(
  db: Executor,
  dropCached: (hash: string) => void,
  ...[projectId, now, audit]: Parameters<KeyRepository["writeDueRevocations"]>
): ReturnType<KeyRepository["writeDueRevocations"]> {
  const scheduled = await db.execute(scheduledRevocations(projectId));
  const due = scheduled.rows.filter((row) => text(row, "revokes_at") <= now);
  const next = scheduled.rows.find((row) => text(row, "revokes_at") > now);
  const upcoming = next === undefined ? null : text(next, "revokes_at");
  if (due.length === 0) return { written: 0, next: upcoming };
  const written = await db.transaction(async (tx) => {
    let count = 0;
    for (const row of due) {
      const id = text(row, "id");
      const rs = await tx.execute(writeDueRevocation(projectId, id, now));
      if (rs.rowsAffected === 0) continue; // revoked meanwhile, by another process or for another reason
      await tx.execute(auditInsert(audit(id, text(row, "revokes_at"))));
      count++;
    }
    return count;
  }, "write");
  for (const row of due) dropCached(text(row, "hash"));
  return { written, next: upcoming };
}

/**
 * The statement that schedules a rerolled key's revocation, only once its successor is stored; an earlier schedule
 * is kept. It returns the key's hash (no row when nothing was scheduled).
 *
 * @param projectId The project.
 * @param id The rerolled key.
 * @param successorId The key that replaces it, inserted in the same batch before this statement.
 * @param revokesAt When the rerolled key is revoked (ISO 8601).
 * @returns The statement.
 */
export function scheduledBySuccessor(projectId: string, id: string, successorId: string, revokesAt: string): Statement {
  return {
    sql: `UPDATE cloud_keys SET revokes_at = CASE WHEN revokes_at IS NULL OR revokes_at > ? THEN ? ELSE revokes_at END
          WHERE project_id = ? AND id = ? AND EXISTS (SELECT 1 FROM cloud_keys WHERE project_id = ? AND id = ?)
          RETURNING hash`,
    args: [revokesAt, revokesAt, projectId, id, projectId, successorId],
  };
}
