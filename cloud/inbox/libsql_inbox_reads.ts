/**
 * What an operator reads and does of a project's inboxes on libSQL: the backlog, peeking, discarding an item.
 *
 * @module
 */
import { auditInsert } from "../audit/mod.ts";
import type { Executor } from "../../core/db/mod.ts";
import { integer, text, textOrNull } from "../../core/db/mod.ts";
import { toItem } from "./libsql_events.ts";
import type { InboxReads } from "./inbox_query.ts";

/**
 * The operator's inbox queries on an executor.
 *
 * @param db The database.
 * @param settle Writes what is held in process (delivery counts) before a read that shows it.
 * @returns The inbox reads.
 */
export function inboxReads(db: Executor, settle: () => Promise<void>): InboxReads {
  return {
    async waitingByProject() {
      await settle();
      const rs = await db.execute(
        `SELECT project_id, COUNT(*) AS waiting, MIN(created_at) AS oldest_at
         FROM cloud_events WHERE acked_at IS NULL GROUP BY project_id`,
      );
      return rs.rows.map((row) => ({
        projectId: text(row, "project_id"),
        waiting: integer(row, "waiting"),
        oldestAt: text(row, "oldest_at"),
      }));
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
  };
}
