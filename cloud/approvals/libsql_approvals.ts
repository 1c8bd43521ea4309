/**
 * Approvals on libSQL.
 *
 * @module
 */
import type { Executor, SqlRow, SqlValue, Statement } from "../../core/db/mod.ts";
import { deleteInChunks, text, textOrNull } from "../../core/db/mod.ts";
import type { ApprovalStatus } from "../../core/contract/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import type { ApprovalRepository, ListedApproval } from "./approval_repository.ts";

/** The approvals' tables holding a project's rows: deleted with the project. */
export const APPROVAL_TABLES: readonly string[] = ["cloud_approval_steps", "cloud_approvals"];

/**
 * Approval queries on a database.
 *
 * @param db The database.
 * @returns The approvals' storage.
 */
export function approvalStorage(db: Executor): ApprovalRepository {
  return {
    async addApprovalSteps(projectId, steps) {
      const statements: Statement[] = [];
      /** Per step, the statement whose rows say whether it was new. */
      const reads: number[] = [];
      for (const { step, audit, nonce, receivedAt } of steps) {
        const key = [projectId, step.approvalId, step.status];
        statements.push({
          sql: `INSERT INTO cloud_approval_steps (project_id, approval_id, status, nonce, received_at, expires_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, approval_id, status) DO NOTHING RETURNING nonce`,
          args: [...key, nonce, receivedAt, step.expiresAt],
        });
        reads.push(statements.length - 1);
        statements.push(
          // The approval's row: created by its first step; a final status is never overwritten.
          {
            sql: `INSERT INTO cloud_approvals (project_id, approval_id, intent, key_id, user_id, agent_id, status,
                created_at, expires_at, decided_at, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (project_id, approval_id) DO UPDATE SET status = excluded.status,
                decided_at = excluded.decided_at, reason = excluded.reason
              WHERE cloud_approvals.status = 'pending' AND excluded.status <> 'pending'`,
            args: [
              projectId,
              step.approvalId,
              step.intent,
              step.keyId,
              step.userId,
              step.agentId,
              step.status,
              step.createdAt,
              step.expiresAt,
              step.decidedAt,
              step.reason ?? null,
            ],
          },
          // Its audit entry, written only by the delivery that stored the step.
          auditInsert(audit, {
            sql: `EXISTS (SELECT 1 FROM cloud_approval_steps WHERE project_id = ? AND approval_id = ? AND status = ?
              AND nonce = ?)`,
            args: [...key, nonce],
          }),
        );
      }
      const results = await db.batch(statements, "write");
      return reads.map((read) => results[read].rows.length > 0);
    },
    async purgeApprovals(before) {
      await deleteInChunks(db, { table: "cloud_approval_steps", where: "expires_at < ?", args: [before] });
      return await deleteInChunks(db, { table: "cloud_approvals", where: "expires_at < ?", args: [before] });
    },
    async listApprovals(projectId, query) {
      const clauses = ["project_id = ?"];
      const args: SqlValue[] = [projectId];
      const where = (clause: string, ...values: SqlValue[]) => {
        clauses.push(clause);
        args.push(...values);
      };
      if (query.keyId !== undefined) where("key_id = ?", query.keyId);
      if (query.userId !== undefined) where("user_id = ?", query.userId);
      if (query.decided) where("NOT (status = 'pending' AND expires_at > ?)", query.now);
      if (query.cursor !== undefined) where("approval_id < ?", query.cursor);
      // An approval still pending here after its expiry is listed as expired.
      if (query.status === "pending") where("status = 'pending' AND expires_at > ?", query.now);
      else if (query.status === "expired") {
        where("(status = 'expired' OR (status = 'pending' AND expires_at <= ?))", query.now);
      } else if (query.status !== undefined) where("status = ?", query.status);
      const rs = await db.execute({
        sql: `SELECT * FROM cloud_approvals WHERE ${clauses.join(" AND ")} ORDER BY approval_id DESC LIMIT ?`,
        args: [...args, query.limit],
      });
      return rs.rows.map((row) => toApproval(row, query.now));
    },
  };
}

/** A row as listed: a pending approval past its expiry is `expired`. */
function toApproval(row: SqlRow, now: string): ListedApproval {
  const expiresAt = text(row, "expires_at");
  let status = text(row, "status") as ApprovalStatus;
  if (status === "pending" && expiresAt <= now) status = "expired";
  return {
    approvalId: text(row, "approval_id"),
    intent: text(row, "intent"),
    keyId: text(row, "key_id"),
    userId: text(row, "user_id"),
    agentId: textOrNull(row, "agent_id"),
    status,
    createdAt: text(row, "created_at"),
    expiresAt,
    decidedAt: textOrNull(row, "decided_at"),
    reason: textOrNull(row, "reason"),
  };
}
