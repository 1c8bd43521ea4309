/**
 * The statements of a key's life past its minting on libSQL: its creation's audit entry, whether it is in force
 * (a reroll's condition), and its scheduled revocation written when its time has come (reason `reroll`, so the
 * trigger of migration 6 puts it in the revocation feed).
 *
 * @module
 */
import type { Statement } from "../../core/db/mod.ts";
import { type AuditEntryInput, auditInsert } from "../audit/mod.ts";
import type { Condition } from "../../core/keys/mod.ts";

/**
 * The audit entry of a key's creation, written only when the key was stored (by the statement before it).
 *
 * @param projectId The project.
 * @param keyId The key.
 * @param audit The entry (`key.create`, `key.reroll`).
 * @returns The statement.
 */
export function keyCreated(projectId: string, keyId: string, audit: AuditEntryInput): Statement {
  return auditInsert(audit, {
    sql: "EXISTS (SELECT 1 FROM cloud_keys WHERE project_id = ? AND id = ?)",
    args: [projectId, keyId],
  });
}

/**
 * The condition that a user's key is in force at a time: not revoked, not expired, no revocation due.
 *
 * @param projectId The project.
 * @param userId The key's owner.
 * @param id The key.
 * @param now ISO 8601.
 * @returns The condition.
 */
export function keyInForce(projectId: string, userId: string, id: string, now: string): Condition {
  return {
    // Never a key of an OAuth grant: a successor outside the grant would outlive its end.
    sql: `EXISTS (SELECT 1 FROM cloud_keys WHERE project_id = ? AND id = ? AND user_id = ? AND revoked_at IS NULL
            AND grant_id IS NULL AND (revokes_at IS NULL OR revokes_at > ?) AND (expires_at IS NULL OR expires_at > ?))`,
    args: [projectId, id, userId, now, now],
  };
}

/** The most scheduled revocations one read looks at (the earliest first): the rest wait for the next read. */
export const SCHEDULED_PAGE = 100;

/**
 * The project's scheduled revocations not yet written, the earliest first: those due and the next one to come, in one
 * read (a feed poll makes it on every request).
 *
 * @param projectId The project.
 * @returns A statement whose rows have `id`, `hash` and `revokes_at`.
 */
export function scheduledRevocations(projectId: string): Statement {
  return {
    sql: `SELECT id, hash, revokes_at FROM cloud_keys
          WHERE project_id = ? AND revokes_at IS NOT NULL AND revoked_at IS NULL ORDER BY revokes_at LIMIT ?`,
    args: [projectId, SCHEDULED_PAGE],
  };
}

/**
 * Writes a due scheduled revocation as the key's revocation, at its scheduled time, with reason `reroll`.
 *
 * @param projectId The project.
 * @param id The key.
 * @param now ISO 8601: the revocation must be due by then.
 * @returns The statement (no row changed when the key was revoked meanwhile).
 */
export function writeDueRevocation(projectId: string, id: string, now: string): Statement {
  return {
    sql: `UPDATE cloud_keys SET revoke_reason = 'reroll', revoked_at = revokes_at
          WHERE project_id = ? AND id = ? AND revoked_at IS NULL AND revokes_at IS NOT NULL AND revokes_at <= ?`,
    args: [projectId, id, now],
  };
}
