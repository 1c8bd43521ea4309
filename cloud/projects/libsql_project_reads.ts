/**
 * What the dashboard reads of a project on libSQL: keys across users, the
 * inbox backlog, and violations by hour or day for the charts.
 *
 * @module
 */
import { auditInsert } from "../audit/mod.ts";
import type { Executor, SqlRow, SqlValue } from "../../core/db/mod.ts";
import type { ProjectAdminStorage } from "./project_admin_storage.ts";
import type { Severity } from "../../core/contract/mod.ts";
import { integer, text, textOrNull } from "../../core/db/mod.ts";
import { KEY_COLUMNS, selectKeyById, toKey } from "../../core/keys/mod.ts";
import { toItem } from "../inbox/mod.ts";

/** The read part of {@linkcode ProjectAdminStorage}. */
export type ProjectReads = Omit<
  ProjectAdminStorage,
  "renameProject" | "deleteProject" | "setProjectRetention"
>;

/**
 * The dashboard's project queries on an executor.
 *
 * @param db The database.
 * @param settle Writes what is held in process (delivery counts) before a read that shows it.
 * @returns The read part of the storage.
 */
export function projectReads(db: Executor, settle: () => Promise<void>): ProjectReads {
  return {
    async listProjectKeys(projectId, query) {
      const clauses = ["project_id = ?"];
      const args: SqlValue[] = [projectId];
      if (query.userId !== undefined) {
        clauses.push("user_id = ?");
        args.push(query.userId);
      }
      if (query.status !== undefined) clauses.push(`revoked_at IS ${query.status === "active" ? "" : "NOT "}NULL`);
      const where = clauses.join(" AND ");
      const [page, count] = await db.batch([
        {
          sql:
            `SELECT ${KEY_COLUMNS} FROM cloud_keys WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        { sql: `SELECT COUNT(*) AS total FROM cloud_keys WHERE ${where}`, args },
      ], "read");
      return { keys: page.rows.map(toKey), total: integer(count.rows[0], "total") };
    },
    async findProjectKey(projectId, id) {
      const rs = await db.execute(selectKeyById({ table: "cloud_keys", projectId }, id));
      return rs.rows.length ? toKey(rs.rows[0]) : null;
    },
    async countKeys(projectId) {
      const rs = await db.execute({
        sql: `SELECT COALESCE(SUM(revoked_at IS NULL), 0) AS active, COALESCE(SUM(revoked_at IS NOT NULL), 0) AS revoked
              FROM cloud_keys WHERE project_id = ?`,
        args: [projectId],
      });
      return { active: integer(rs.rows[0], "active"), revoked: integer(rs.rows[0], "revoked") };
    },

    async inboxBacklog(projectId) {
      await settle();
      const rs = await db.execute({
        sql: `SELECT agent_id, COUNT(*) AS waiting, MIN(created_at) AS oldest_at, MAX(deliveries) AS max_deliveries
              FROM cloud_events WHERE project_id = ? AND acked_at IS NULL
              GROUP BY agent_id ORDER BY oldest_at, agent_id`,
        args: [projectId],
      });
      return rs.rows.map((row) => ({
        agentId: text(row, "agent_id"),
        waiting: integer(row, "waiting"),
        oldestAt: text(row, "oldest_at"),
        maxDeliveries: integer(row, "max_deliveries"),
      }));
    },
    async peekInbox(projectId, agentId, query) {
      await settle();
      // Waiting and acknowledged items each have a partial index; both at once is the merge of the two.
      const states = query.status === undefined ? ["waiting", "acknowledged"] : [query.status];
      const where = (state: string) =>
        `FROM cloud_events WHERE project_id = ? AND agent_id = ? AND acked_at IS ${
          state === "waiting" ? "" : "NOT "
        }NULL`;
      const args = states.flatMap(() => [projectId, agentId]);
      const order = query.status === "waiting" ? "inbox_id" : "inbox_id DESC";
      const [page, count] = await db.batch([
        {
          sql: `${states.map((s) => `SELECT * ${where(s)}`).join(" UNION ALL ")} ORDER BY ${order} LIMIT ? OFFSET ?`,
          args: [...args, query.limit, query.offset],
        },
        { sql: `SELECT ${states.map((s) => `(SELECT COUNT(*) ${where(s)})`).join(" + ")} AS total`, args },
      ], "read");
      return {
        items: page.rows.map((row) => ({
          ...toItem(row, integer(row, "deliveries")),
          acknowledgedAt: textOrNull(row, "acked_at"),
        })),
        total: integer(count.rows[0], "total"),
      };
    },
    async discardInboxItem(projectId, agentId, inboxId, at, audit) {
      // The audit entry first, in the same batch, written only when the item is waiting.
      const waiting = {
        sql:
          "EXISTS (SELECT 1 FROM cloud_events WHERE project_id = ? AND agent_id = ? AND inbox_id = ? AND acked_at IS NULL)",
        args: [projectId, agentId, inboxId],
      };
      const results = await db.batch([
        ...audit ? [auditInsert(audit, waiting)] : [],
        {
          sql:
            "UPDATE cloud_events SET acked_at = ? WHERE project_id = ? AND agent_id = ? AND inbox_id = ? AND acked_at IS NULL",
          args: [at, projectId, agentId, inboxId],
        },
      ], "write");
      return results[results.length - 1].rowsAffected === 1;
    },

    async violationBuckets(projectId, since, unit) {
      // Hours are stored as `YYYY-MM-DDTHH`; a day is its first 10 characters.
      const width = unit === "hour" ? 13 : 10;
      const rs = await db.execute({
        sql: `SELECT substr(hour, 1, ${width}) AS bucket, severity, SUM(n) AS count FROM cloud_violation_hours
              WHERE project_id = ? AND hour >= ? AND n > 0
              GROUP BY bucket, severity ORDER BY bucket, severity`,
        args: [projectId, since.slice(0, width)],
      });
      return rs.rows.map((row: SqlRow) => ({
        bucket: text(row, "bucket"),
        severity: text(row, "severity") as Severity,
        count: integer(row, "count"),
      }));
    },
  };
}
