/**
 * Events and agent inboxes on libSQL. Each event goes to one inbox, so an
 * event and its inbox item share a row of `cloud_events`.
 *
 * @module
 */
import type { Executor, SqlRow, SqlValue } from "../../core/db/mod.ts";
import type { InboxItem, InboxRepository } from "./inbox_repository.ts";
import { integer, parsed, placeholders, text } from "../../core/db/mod.ts";
import type { GroupCommit } from "../../core/db/mod.ts";
import { deleteInChunks } from "../../core/db/mod.ts";
import { PROJECT_RETENTIONS, PROJECTS_WITH_RETENTION } from "../projects/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The event and inbox part of {@linkcode InboxRepository}, and the write-back of delivery counts. */
export type EventStorage =
  & Pick<
    InboxRepository,
    "appendEvents" | "listInbox" | "acknowledge" | "purgeAcknowledged" | "inboxesFilledAfter" | "dataVersion"
  >
  & {
    /** Writes the delivery counts not written yet. */
    flushDeliveries(): Promise<void>;
  };

/**
 * Delivery counts are added up in process and written at most this often, so
 * re-polling the same items (from cursor 0, say) costs a read, not a write per
 * item per request. The count reported includes what is not written yet.
 */
export const DELIVERY_FLUSH_MS = 1_000;
/** Items with a delivery count not written yet, at most; more forces a write at once. */
const PENDING_DELIVERIES_LIMIT = 50_000;

/**
 * Event and inbox queries on a database.
 *
 * @param db The database.
 * @param group Where single events are written together with others arriving at the same time.
 * @returns The event part of the storage.
 */
export function eventStorage(db: Executor, group: GroupCommit): EventStorage {
  const pending = new Map<number, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let flushing: Promise<void> = Promise.resolve();

  function flushDeliveries(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (pending.size === 0) return flushing;
    const counts = [...pending];
    pending.clear();
    // One prepared statement, run once per item, in the group's transaction. A failed write loses
    // only counts (never items); it is not retried.
    flushing = flushing.then(() =>
      group.write(counts.map(([inboxId, n]) => ({
        sql: "UPDATE cloud_events SET deliveries = deliveries + ? WHERE inbox_id = ?",
        args: [n, inboxId],
      })))
    ).then(() => {}, () => {});
    return flushing;
  }

  function countDelivery(inboxId: number): number {
    const n = (pending.get(inboxId) ?? 0) + 1;
    pending.set(inboxId, n);
    return n;
  }

  return {
    async appendEvents(projectId, events, at) {
      if (events.length === 1) return [await appendOne(db, group, projectId, events[0], at)];
      // One write transaction of two statements: a multi-row insert that skips known eventIds and
      // returns the new ones, then one read of the rows holding every eventId of the batch.
      const ids = [...new Set(events.map((e) => e.eventId))];
      const [inserted, held] = await db.batch([
        {
          sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
                VALUES ${events.map(() => "(?, ?, ?, ?, ?, ?)").join(", ")}
                ON CONFLICT (project_id, event_id) WHERE replay_of IS NULL DO NOTHING RETURNING event_id`,
          args: events.flatMap((e) => [projectId, e.eventId, e.type, e.agentId, JSON.stringify(e.payload), at]),
        },
        {
          sql: `SELECT event_id, inbox_id, agent_id FROM cloud_events
                WHERE project_id = ? AND event_id IN (${placeholders(ids.length)}) AND replay_of IS NULL`,
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
    async listInbox(projectId, agentId, cursor, limit, at) {
      // Leased items (and items released with a delay) and dead letters are not handed out.
      const rs = await db.execute({
        sql: `SELECT * FROM cloud_events
              WHERE project_id = ? AND agent_id = ? AND acked_at IS NULL AND inbox_id > ? AND dead_at IS NULL
                AND (lease_expires_at IS NULL OR lease_expires_at <= ?)
              ORDER BY inbox_id LIMIT ?`,
        args: [projectId, agentId, cursor, at, limit],
      });
      if (rs.rows.length === 0) return [];
      const items = rs.rows.map((row) =>
        toItem(row, integer(row, "deliveries") + countDelivery(integer(row, "inbox_id")))
      );
      if (pending.size >= PENDING_DELIVERIES_LIMIT) flushDeliveries();
      else timer ??= setTimeout(flushDeliveries, DELIVERY_FLUSH_MS);
      return items;
    },
    async acknowledge(projectId, agentId, inboxIds, at) {
      const rs = await db.execute({
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
        db,
        `acked_at < ? AND project_id NOT IN (${PROJECTS_WITH_RETENTION})`,
        [before],
      );
      const own = await db.execute(PROJECT_RETENTIONS);
      for (const row of own.rows) {
        const cutoff = new Date(PLATFORM.now() - integer(row, "retention_ms")).toISOString();
        purged += await purgeChunks(db, "acked_at < ? AND project_id = ?", [cutoff, text(row, "project_id")]);
      }
      return purged;
    },
    async inboxesFilledAfter(inboxId) {
      const latest = await db.execute("SELECT COALESCE(MAX(inbox_id), 0) AS latest FROM cloud_events");
      if (inboxId < 0) return { latest: integer(latest.rows[0], "latest"), inboxes: [] };
      const rs = await db.execute({
        sql: "SELECT DISTINCT project_id, agent_id FROM cloud_events WHERE inbox_id > ? AND acked_at IS NULL",
        args: [inboxId],
      });
      return {
        latest: integer(latest.rows[0], "latest"),
        inboxes: rs.rows.map((row) => ({ projectId: text(row, "project_id"), agentId: text(row, "agent_id") })),
      };
    },
    dataVersion() {
      return db.dataVersion();
    },
    flushDeliveries,
  };
}

/** The inbox's tables holding a project's rows, children first: deleted with the project. */
export const INBOX_TABLES: readonly string[] = ["cloud_inbox_policy", "cloud_events"];

/** Deletes acknowledged items matching `where`, a chunk per statement; the count deleted. */
function purgeChunks(db: Executor, where: string, args: SqlValue[]): Promise<number> {
  return deleteInChunks(db, { table: "cloud_events", where: `acked_at IS NOT NULL AND ${where}`, args });
}

/**
 * A `cloud_events` row as an inbox item.
 *
 * @param row The row.
 * @param deliveries The deliveries to report.
 * @returns The item.
 */
export function toItem(row: SqlRow, deliveries: number): InboxItem {
  const replayOf = row.replay_of;
  return {
    ...typeof replayOf === "number" || typeof replayOf === "bigint" ? { replayOf: Number(replayOf) } : {},
    inboxId: integer(row, "inbox_id"),
    eventId: text(row, "event_id"),
    type: text(row, "type"),
    agentId: text(row, "agent_id"),
    payload: parsed<Record<string, unknown>>(row, "payload"),
    createdAt: text(row, "created_at"),
    deliveries,
  };
}

/** Attempts of {@linkcode appendOne} when the row an eventId conflicted with is deleted before it is read. */
const APPEND_ATTEMPTS = 3;

/**
 * One event, written in the group commit of this turn: an insert that skips a
 * known eventId, one statement; a new row's inbox id is its rowid. A duplicate
 * (nothing inserted) is answered from the row that holds the eventId, read once
 * the group has committed: that row was committed before the insert met it, and
 * if it was deleted in between (an acknowledged item purged), the event is
 * written again. The insert alone (without RETURNING, which makes SQLite buffer
 * the row and the binding build a result) costs the group about half of what
 * an insert and a read of every event did.
 */
async function appendOne(
  db: Executor,
  group: GroupCommit,
  projectId: string,
  e: { eventId: string; type: string; agentId: string; payload: Record<string, unknown> },
  at: string,
): Promise<{ eventId: string; inboxId: number; agentId: string; duplicate: boolean }> {
  const insert = {
    sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
          VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, event_id) WHERE replay_of IS NULL DO NOTHING`,
    args: [projectId, e.eventId, e.type, e.agentId, JSON.stringify(e.payload), at],
  };
  for (let attempt = 1;; attempt++) {
    const [inserted] = await group.write([insert]);
    const fresh = inserted.rowsAffected > 0;
    if (fresh && inserted.lastInsertRowid !== undefined) {
      return { eventId: e.eventId, inboxId: inserted.lastInsertRowid, agentId: e.agentId, duplicate: false };
    }
    // A duplicate, or an engine that does not report the rowid: the row holding the eventId.
    const held = await db.execute({
      sql: "SELECT inbox_id, agent_id FROM cloud_events WHERE project_id = ? AND event_id = ? AND replay_of IS NULL",
      args: [projectId, e.eventId],
    });
    const row = held.rows[0];
    if (row !== undefined) {
      return {
        eventId: e.eventId,
        inboxId: integer(row, "inbox_id"),
        agentId: text(row, "agent_id"),
        duplicate: !fresh,
      };
    }
    if (fresh || attempt === APPEND_ATTEMPTS) throw new Error(`The event ${e.eventId} was deleted while being stored`);
  }
}
