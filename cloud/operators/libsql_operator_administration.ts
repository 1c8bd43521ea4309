/**
 * Invites, role changes and guarded removals of operators on libSQL. Each write is one batch whose statements share
 * one condition, so two admins demoting each other at once cannot leave the cloud without an admin.
 *
 * @module
 */
import type { Executor, SqlValue, Statement } from "../../core/db/mod.ts";
import { text } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import type { OperatorRole } from "./operator_storage.ts";
import type { OperatorAdministrationStorage, OperatorChangeOutcome } from "./operator_administration.ts";

const OPERATOR_COLUMNS = "id, email, role, password_hash, totp_secret, recovery_code_hashes, created_at, updated_at";

/** An admin other than `id` remains. */
const ANOTHER_ADMIN = "EXISTS (SELECT 1 FROM cloud_operators WHERE role = 'admin' AND id <> ?)";

/**
 * The operators' administration queries on an executor.
 *
 * @param db The database.
 * @returns The administration part of the operators' storage.
 */
export function operatorAdministration(db: Executor): OperatorAdministrationStorage {
  const exists = async (id: string): Promise<boolean> =>
    (await db.execute({ sql: "SELECT 1 FROM cloud_operators WHERE id = ?", args: [id] })).rows.length === 1;
  const outcome = async (changed: boolean, id: string): Promise<OperatorChangeOutcome> =>
    changed ? "done" : await exists(id) ? "last_admin" : "unknown";
  return {
    async createInvite(invite, audit) {
      const free = "NOT EXISTS (SELECT 1 FROM cloud_operators WHERE email = ?)";
      const [created] = await db.batch([
        {
          sql: `INSERT INTO cloud_operator_invites (token_hash, email, role, invited_by, created_at, expires_at)
                SELECT ?, ?, ?, ?, ?, ? WHERE ${free}`,
          args: [
            invite.tokenHash,
            invite.email.toLowerCase(),
            invite.role,
            invite.invitedBy,
            invite.createdAt,
            invite.expiresAt,
            invite.email.toLowerCase(),
          ],
        },
        auditInsert(audit, {
          sql: "EXISTS (SELECT 1 FROM cloud_operator_invites WHERE token_hash = ?)",
          args: [invite.tokenHash],
        }),
      ], "write");
      return created.rowsAffected === 1;
    },
    async findInvite(tokenHash, at) {
      const rs = await db.execute({
        sql: `SELECT token_hash, email, role, invited_by, created_at, expires_at FROM cloud_operator_invites i
              WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?
              AND NOT EXISTS (SELECT 1 FROM cloud_operators o WHERE o.email = i.email)`,
        args: [tokenHash, at],
      });
      if (rs.rows.length === 0) return null;
      const row = rs.rows[0];
      return {
        tokenHash: text(row, "token_hash"),
        email: text(row, "email"),
        role: text(row, "role") as OperatorRole,
        invitedBy: text(row, "invited_by"),
        createdAt: text(row, "created_at"),
        expiresAt: text(row, "expires_at"),
      };
    },
    async acceptInvite(tokenHash, operator, at, audit) {
      // Spend the invite only while its email is free, then insert the operator only if this batch spent it.
      const [spent] = await db.batch([
        {
          sql: `UPDATE cloud_operator_invites SET used_at = ?
                WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? AND email = ?
                AND NOT EXISTS (SELECT 1 FROM cloud_operators WHERE email = ?)`,
          args: [at, tokenHash, at, operator.email, operator.email],
        },
        {
          sql: `INSERT INTO cloud_operators (${OPERATOR_COLUMNS})
                SELECT ?, ?, role, ?, NULL, '[]', ?, ? FROM cloud_operator_invites WHERE token_hash = ? AND used_at = ?`,
          args: [operator.id, operator.email, operator.passwordHash, at, at, tokenHash, at],
        },
        auditInsert(audit, { sql: "EXISTS (SELECT 1 FROM cloud_operators WHERE id = ?)", args: [operator.id] }),
      ], "write");
      return spent.rowsAffected === 1;
    },
    async changeRole(id, role, at, audit) {
      // Allowed when the new role is admin, or another admin remains; every statement under that one condition.
      const allowed: Statement = {
        sql: `EXISTS (SELECT 1 FROM cloud_operators WHERE id = ?) AND (? = 'admin' OR ${ANOTHER_ADMIN})`,
        args: [id, role, id],
      };
      const [, updated] = await db.batch([
        auditInsert(audit, allowed),
        {
          sql: `UPDATE cloud_operators SET role = ?, updated_at = ? WHERE id = ? AND (? = 'admin' OR ${ANOTHER_ADMIN})`,
          args: [role, at, id, role, id],
        },
        // The new role takes effect at once: the operator signs in again.
        { sql: `DELETE FROM cloud_sessions WHERE operator_id = ? AND ${withRole()}`, args: [id, id, role] },
        // A demoted admin's pending invites end with their power to invite.
        {
          sql: `DELETE FROM cloud_operator_invites WHERE used_at IS NULL
                AND invited_by = (SELECT email FROM cloud_operators WHERE id = ? AND role = 'viewer')`,
          args: [id],
        },
      ], "write");
      return outcome(updated.rowsAffected === 1, id);
    },
    async removeUnlessLastAdmin(id, audit) {
      const allowed = `EXISTS (SELECT 1 FROM cloud_operators WHERE id = ? AND (role <> 'admin' OR ${ANOTHER_ADMIN}))`;
      const args: SqlValue[] = [id, id];
      const [, , , removed] = await db.batch([
        auditInsert(audit, { sql: allowed, args }),
        { sql: `DELETE FROM cloud_sessions WHERE operator_id = ? AND ${allowed}`, args: [id, ...args] },
        // A removed operator's pending invites go with them.
        {
          sql: `DELETE FROM cloud_operator_invites WHERE used_at IS NULL
                AND invited_by = (SELECT email FROM cloud_operators WHERE id = ?) AND ${allowed}`,
          args: [id, ...args],
        },
        { sql: `DELETE FROM cloud_operators WHERE id = ? AND ${allowed}`, args: [id, ...args] },
      ], "write");
      return outcome(removed.rowsAffected === 1, id);
    },
  };
}

/** The operator (first argument) now has the role (second argument). */
function withRole(): string {
  return "EXISTS (SELECT 1 FROM cloud_operators WHERE id = ? AND role = ?)";
}
