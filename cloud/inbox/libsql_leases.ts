/**
 * The inbox as a queue on libSQL: leases are columns of the item's row (`lease_id`, `lease_expires_at`), taken by
 * one conditional UPDATE, so every node sharing the database sees the same claim; a lease's end is a time compared
 * with the caller's clock, never a timer.
 *
 * @module
 */
import type { Executor, SqlRow, Statement } from "../../core/db/mod.ts";
import { integer, parsed, placeholders, text } from "../../core/db/mod.ts";
import { auditInsert } from "../audit/mod.ts";
import { toItem } from "./libsql_events.ts";
import { DEFAULT_MAX_DELIVERIES, type InboxLeases, LEASE_EXPIRED } from "./inbox_leases.ts";

/** The project's maxDeliveries, as an SQL expression of one argument (the project id). */
const MAX_DELIVERIES =
  `COALESCE((SELECT max_deliveries FROM cloud_inbox_policy WHERE project_id = ?), ${DEFAULT_MAX_DELIVERIES})`;

/** Items of one inbox that are in the queue: neither acknowledged nor dead. */
const QUEUED = "project_id = ? AND agent_id = ? AND acked_at IS NULL AND dead_at IS NULL";

/**
 * The statement that makes dead letters of one inbox's items whose lease ran out at the limit.
 *
 * @param projectId The project.
 * @param agentId The inbox.
 * @param at Now, ISO 8601.
 * @returns The statement.
 */
function buryExpired(projectId: string, agentId: string, at: string): Statement {
  return {
    sql: `UPDATE cloud_events SET dead_at = ?, dead_reason = ?, lease_id = NULL, lease_expires_at = NULL
          WHERE ${QUEUED} AND lease_expires_at IS NOT NULL AND lease_expires_at <= ? AND lease_id IS NOT NULL
            AND deliveries >= ${MAX_DELIVERIES}`,
    args: [at, LEASE_EXPIRED, projectId, agentId, at, projectId],
  };
}

/**
 * The inbox's leases and dead letters on a database.
 *
 * @param db The database.
 * @returns The lease part of the inbox's repository.
 */
export function leaseStorage(db: Executor): InboxLeases {
  return {
    async leaseInbox(projectId, agentId, cursor, limit, at, until, token) {
      const [, claimed] = await db.batch([
        buryExpired(projectId, agentId, at),
        {
          // One statement: the items free now are chosen and leased in the same write, which SQLite serialises
          // across every connection, so no two polls can choose the same item.
          sql: `UPDATE cloud_events SET lease_id = ? || inbox_id, lease_expires_at = ?, deliveries = deliveries + 1
                WHERE inbox_id IN (
                  SELECT inbox_id FROM cloud_events
                  WHERE ${QUEUED} AND inbox_id > ? AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
                  ORDER BY inbox_id LIMIT ?)
                RETURNING *`,
          args: [`${token}.`, until, projectId, agentId, cursor, at, limit],
        },
      ], "write");
      return claimed.rows
        .map((row) => ({ ...toItem(row, integer(row, "deliveries")), ...leaseOf(row) }))
        .sort((a, b) => a.inboxId - b.inboxId);
    },
    async nextLeaseEnd(projectId, agentId, at) {
      const rs = await db.execute({
        sql: `SELECT MIN(lease_expires_at) AS next FROM cloud_events
              WHERE ${QUEUED} AND lease_expires_at IS NOT NULL AND lease_expires_at > ?`,
        args: [projectId, agentId, at],
      });
      const next = rs.rows[0]?.next;
      return typeof next === "string" ? next : null;
    },
    async extendLeases(projectId, agentId, leaseIds, at, until) {
      const rs = await db.execute({
        sql: `UPDATE cloud_events SET lease_expires_at = ?
              WHERE ${QUEUED} AND lease_expires_at > ? AND lease_id IN (${placeholders(leaseIds.length)})
              RETURNING lease_id, lease_expires_at`,
        args: [until, projectId, agentId, at, ...leaseIds],
      });
      return rs.rows.map(leaseOf);
    },
    async releaseLeases(projectId, agentId, leaseIds, at, availableAt, reason) {
      const held = `${QUEUED} AND lease_expires_at > ? AND lease_id IN (${placeholders(leaseIds.length)})`;
      const args = [projectId, agentId, at, ...leaseIds];
      const [buried, released] = await db.batch([
        {
          sql: `UPDATE cloud_events SET dead_at = ?, dead_reason = ?, lease_id = NULL, lease_expires_at = NULL
                WHERE ${held} AND deliveries >= ${MAX_DELIVERIES}`,
          args: [at, reason, ...args, projectId],
        },
        {
          // Back in the queue; a delay keeps the item hidden until `availableAt`, without a lease id.
          sql: `UPDATE cloud_events SET lease_id = NULL, lease_expires_at = ? WHERE ${held}`,
          args: [availableAt > at ? availableAt : null, ...args],
        },
      ], "write");
      return buried.rowsAffected + released.rowsAffected;
    },
    async acknowledgeLeases(projectId, agentId, leaseIds, at) {
      const rs = await db.execute({
        sql: `UPDATE cloud_events SET acked_at = ?, lease_id = NULL, lease_expires_at = NULL
              WHERE project_id = ? AND agent_id = ? AND acked_at IS NULL
                AND lease_id IN (${placeholders(leaseIds.length)})`,
        args: [at, projectId, agentId, ...leaseIds],
      });
      return rs.rowsAffected;
    },
    async deadLetters(projectId, agentId, at) {
      const [, rs] = await db.batch([
        buryExpired(projectId, agentId, at),
        {
          sql: `SELECT * FROM cloud_events
                WHERE project_id = ? AND agent_id = ? AND acked_at IS NULL AND dead_at IS NOT NULL
                ORDER BY inbox_id LIMIT 1000`,
          args: [projectId, agentId],
        },
      ], "write");
      return rs.rows.map((row) => ({
        inboxId: integer(row, "inbox_id"),
        eventId: text(row, "event_id"),
        type: text(row, "type"),
        payload: parsed<Record<string, unknown>>(row, "payload"),
        deliveries: integer(row, "deliveries"),
        deadAt: text(row, "dead_at"),
        reason: text(row, "dead_reason"),
      }));
    },
    async redrive(projectId, agentId, inboxIds, audit) {
      const only = inboxIds === undefined ? "" : ` AND inbox_id IN (${placeholders(inboxIds.length)})`;
      const dead = {
        sql: `project_id = ? AND agent_id = ? AND acked_at IS NULL AND dead_at IS NOT NULL${only}`,
        args: [projectId, agentId, ...inboxIds ?? []],
      };
      const results = await db.batch([
        // The audit entry first, in the same transaction, written only when something is redriven.
        ...audit
          ? [auditInsert(audit, { sql: `EXISTS (SELECT 1 FROM cloud_events WHERE ${dead.sql})`, args: dead.args })]
          : [],
        {
          sql: `UPDATE cloud_events SET dead_at = NULL, dead_reason = NULL, deliveries = 0, lease_id = NULL,
                lease_expires_at = NULL WHERE ${dead.sql}`,
          args: dead.args,
        },
      ], "write");
      return results[results.length - 1].rowsAffected;
    },
    async replay(projectId, agentId, since, until, at, audit) {
      const window = {
        sql: `project_id = ? AND agent_id = ? AND acked_at IS NOT NULL AND created_at >= ? AND created_at < ?`,
        args: [projectId, agentId, since, until],
      };
      const results = await db.batch([
        ...audit
          ? [auditInsert(audit, { sql: `EXISTS (SELECT 1 FROM cloud_events WHERE ${window.sql})`, args: window.args })]
          : [],
        {
          // A replay of a replayed item names the original.
          sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at, replay_of)
                SELECT project_id, event_id, type, agent_id, payload, ?, COALESCE(replay_of, inbox_id)
                FROM cloud_events WHERE ${window.sql} ORDER BY inbox_id`,
          args: [at, ...window.args],
        },
      ], "write");
      return results[results.length - 1].rowsAffected;
    },
    async maxDeliveries(projectId) {
      const rs = await db.execute({ sql: `SELECT ${MAX_DELIVERIES} AS n`, args: [projectId] });
      return integer(rs.rows[0], "n");
    },
    async setMaxDeliveries(projectId, maxDeliveries, audit) {
      await db.batch([
        ...audit ? [auditInsert(audit)] : [],
        {
          sql: `INSERT INTO cloud_inbox_policy (project_id, max_deliveries) VALUES (?, ?)
                ON CONFLICT (project_id) DO UPDATE SET max_deliveries = excluded.max_deliveries`,
          args: [projectId, maxDeliveries],
        },
      ], "write");
    },
  };
}

function leaseOf(row: SqlRow): { leaseId: string; leaseExpiresAt: string } {
  return { leaseId: text(row, "lease_id"), leaseExpiresAt: text(row, "lease_expires_at") };
}
