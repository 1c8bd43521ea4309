/**
 * Events and agent inboxes on libSQL. Each event goes to one inbox, so an
 * event and its inbox item share a row of `cloud_events`.
 *
 * @module
 */
import type { Client, InValue, Row } from "@libsql/client";
import type { CloudStorage, InboxItem } from "./cloud_storage.ts";
import { integer, parsed, placeholders, text } from "../../core/db/rows.ts";

/** The event and inbox part of {@linkcode CloudStorage}. */
export type EventStorage = Pick<CloudStorage, "appendEvents" | "listInbox" | "acknowledge" | "purgeAcknowledged">;

/** Rows deleted per purge transaction, so a large purge never holds the write lock for long. */
const PURGE_CHUNK = 5000;

/**
 * Event and inbox queries on a client.
 *
 * @param client The database.
 * @returns The event part of the storage.
 */
export function eventStorage(client: Client): EventStorage {
  return {
    async appendEvents(projectId, events, at) {
      if (events.length === 1) return [await appendOne(client, projectId, events[0], at)];
      // One write transaction of two statements: a multi-row insert that skips known eventIds and
      // returns the new ones, then one read of the rows holding every eventId of the batch.
      const ids = [...new Set(events.map((e) => e.eventId))];
      const [inserted, held] = await client.batch([
        {
          sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
                VALUES ${events.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}
                ON CONFLICT (project_id, event_id) DO NOTHING RETURNING event_id`,
          args: events.flatMap((e) => [projectId, e.eventId, e.type, e.agentId, JSON.stringify(e.payload), at]),
        },
        {
          sql: `SELECT event_id, inbox_id, agent_id FROM cloud_events
                WHERE project_id = ? AND event_id IN (${placeholders(ids.length)})`,
          args: [projectId, ...ids],
        },
      ], "write");
      const fresh = new Set(inserted.rows.map((row) => text(row, "event_id")));
      const rows = new Map(held.rows.map((row) => [text(row, "event_id"), row]));
      return events.map((e) => {
        const row = rows.get(e.eventId)!;
        // The first occurrence of a new eventId is new; a repeat within the batch is its duplicate.
        return {
          eventId: e.eventId,
          inboxId: integer(row, "inbox_id"),
          agentId: text(row, "agent_id"),
          duplicate: !fresh.delete(e.eventId),
        };
      });
    },
    async listInbox(projectId, agentId, cursor, limit) {
      const rs = await client.execute({
        sql: `SELECT * FROM cloud_events
              WHERE project_id = ? AND agent_id = ? AND acked_at IS NULL AND inbox_id > ?
              ORDER BY inbox_id LIMIT ?`,
        args: [projectId, agentId, cursor, limit],
      });
      if (rs.rows.length === 0) return [];
      // Count the delivery. Only polls that found items write, so empty
      // (long) polls never take the write lock.
      const ids = rs.rows.map((row) => integer(row, "inbox_id"));
      const counted = await client.execute({
        sql: `UPDATE cloud_events SET deliveries = deliveries + 1
              WHERE inbox_id IN (${placeholders(ids.length)}) RETURNING inbox_id, deliveries`,
        args: ids,
      });
      const deliveries = new Map(counted.rows.map((row) => [integer(row, "inbox_id"), integer(row, "deliveries")]));
      return rs.rows.map((row) => toItem(row, deliveries.get(integer(row, "inbox_id"))));
    },
    async acknowledge(projectId, agentId, inboxIds, at) {
      const rs = await client.execute({
        sql: `UPDATE cloud_events SET acked_at = ?
              WHERE project_id = ? AND agent_id = ? AND acked_at IS NULL AND inbox_id IN (${
          placeholders(inboxIds.length)
        })`,
        args: [at, projectId, agentId, ...inboxIds],
      });
      return rs.rowsAffected;
    },
    async purgeAcknowledged(before) {
      // Projects with their own retention (set on the dashboard) are purged by it; the rest by `before`.
      let purged = await purgeChunks(
        client,
        `acked_at < ? AND project_id NOT IN
           (SELECT project_id FROM cloud_project_settings WHERE retention_ms IS NOT NULL)`,
        [before],
      );
      const own = await client.execute(
        "SELECT project_id, retention_ms FROM cloud_project_settings WHERE retention_ms IS NOT NULL",
      );
      for (const row of own.rows) {
        const cutoff = new Date(Date.now() - integer(row, "retention_ms")).toISOString();
        purged += await purgeChunks(client, "acked_at < ? AND project_id = ?", [cutoff, text(row, "project_id")]);
      }
      return purged;
    },
  };
}

/** Deletes acknowledged items matching `where`, a chunk per transaction; the count deleted. */
async function purgeChunks(client: Client, where: string, args: InValue[]): Promise<number> {
  let purged = 0;
  for (;;) {
    const rs = await client.execute({
      sql: `DELETE FROM cloud_events WHERE inbox_id IN (
              SELECT inbox_id FROM cloud_events WHERE acked_at IS NOT NULL AND ${where} LIMIT ?)`,
      args: [...args, PURGE_CHUNK],
    });
    purged += rs.rowsAffected;
    if (rs.rowsAffected < PURGE_CHUNK) return purged;
  }
}

/**
 * A `cloud_events` row as an inbox item.
 *
 * @param row The row.
 * @param deliveries The deliveries counted by this read, or `undefined` to count one more than stored.
 * @returns The item.
 */
export function toItem(row: Row, deliveries: number | undefined): InboxItem {
  return {
    inboxId: integer(row, "inbox_id"),
    eventId: text(row, "event_id"),
    type: text(row, "type"),
    agentId: text(row, "agent_id"),
    payload: parsed<Record<string, unknown>>(row, "payload"),
    createdAt: text(row, "created_at"),
    deliveries: deliveries ?? integer(row, "deliveries") + 1,
  };
}

/**
 * One event in one autocommit statement when it is new (the common case); a
 * known eventId costs a second read. If that event was purged in between, the
 * eventId is free again and the insert is retried.
 */
async function appendOne(
  client: Client,
  projectId: string,
  e: { eventId: string; type: string; agentId: string; payload: Record<string, unknown> },
  at: string,
): Promise<{ eventId: string; inboxId: number; agentId: string; duplicate: boolean }> {
  for (;;) {
    const inserted = await client.execute({
      sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
            VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, event_id) DO NOTHING RETURNING inbox_id, agent_id`,
      args: [projectId, e.eventId, e.type, e.agentId, JSON.stringify(e.payload), at],
    });
    const row = inserted.rows[0] ??
      (await client.execute({
        sql: "SELECT inbox_id, agent_id FROM cloud_events WHERE project_id = ? AND event_id = ?",
        args: [projectId, e.eventId],
      })).rows[0];
    if (row !== undefined) {
      return {
        eventId: e.eventId,
        inboxId: integer(row, "inbox_id"),
        agentId: text(row, "agent_id"),
        duplicate: inserted.rows.length === 0,
      };
    }
  }
}
