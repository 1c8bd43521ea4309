/**
 * The activity record on libSQL: batches stored once per id, pages newest first by keyset (never an OFFSET, so a
 * page at a million rows reads as few rows as at ten), the export's pages oldest first, a key's hours and the
 * retention purge.
 *
 * @module
 */
import type { ActivityRecord } from "../../core/contract/mod.ts";
import type { Executor, SqlValue, Statement } from "../../core/db/mod.ts";
import { deleteInChunks, integer, placeholders, text, textOrNull } from "../../core/db/mod.ts";
import { ACTIVITY_COLUMN_COUNT, ACTIVITY_COLUMNS, activityFromRow, activityValues } from "../../core/activity/mod.ts";
import type { ActivityCursor, ActivityFilters, ActivityQuery } from "./activity_query.ts";

/** Rows per multi-row INSERT (14 values each, far below SQLite's variable limit). */
const ROWS_PER_INSERT = 50;

/** The columns of a record, in the order of an INSERT. */
const COLUMNS = `project_id, ${ACTIVITY_COLUMNS}`;

/** The activity's tables holding a project's rows: deleted with the project. */
export const ACTIVITY_TABLES: readonly string[] = ["cloud_activity", "cloud_activity_hours"];

/** A key's runs and refusals in one hour. */
export interface ActivityHour {
  /** The hour, `YYYY-MM-DDTHH` (UTC). */
  hour: string;
  /** Runs answered in it (every outcome). */
  runs: number;
  /** Of those, the refused. */
  refusals: number;
}

/** The activity's storage. */
export interface ActivityRepository {
  /**
   * Stores records in one transaction, each id once per project.
   *
   * @returns The ids stored now (an id already stored is not among them).
   */
  addActivity(projectId: string, records: readonly ActivityRecord[]): Promise<Set<string>>;
  /** A page newest first (ties by id): `limit` records after the cursor. */
  listActivity(projectId: string, query: ActivityQuery): Promise<ActivityRecord[]>;
  /** A page of an export, oldest first (ties by id): `limit` records after `after`. */
  exportActivity(
    projectId: string,
    range: Pick<ActivityFilters, "since" | "until">,
    after: ActivityCursor | null,
    limit: number,
  ): Promise<ActivityRecord[]>;
  /** A key's runs and refusals per hour from `since` (an ISO time), oldest first; hours without a run are left out. */
  activityHours(projectId: string, keyId: string, since: string): Promise<ActivityHour[]>;
  /**
   * Deletes records older than each project's retention (`retentionDays`, else `defaultRetentionMs`).
   *
   * @returns How many were deleted.
   */
  purgeActivity(now: number, defaultRetentionMs: number): Promise<number>;
}

/**
 * Activity queries on a database.
 *
 * @param db The database.
 * @returns The activity's storage.
 */
export function activityStorage(db: Executor): ActivityRepository {
  return {
    async addActivity(projectId, records) {
      const statements: Statement[] = [];
      for (let at = 0; at < records.length; at += ROWS_PER_INSERT) {
        statements.push(insertRecords(projectId, records.slice(at, at + ROWS_PER_INSERT)));
      }
      if (statements.length === 0) return new Set();
      const results = await db.batch(statements, "write");
      return new Set(results.flatMap((rs) => rs.rows.map((row) => text(row, "id"))));
    },
    async listActivity(projectId, query) {
      const { who, limit, ...filters } = query;
      const page = `ORDER BY at DESC, id DESC LIMIT ?`;
      if (who === undefined) {
        const base = where(projectId, filters, query.cursor, "<");
        const rs = await db.execute({
          sql: `SELECT ${ACTIVITY_COLUMNS} FROM cloud_activity WHERE ${base.sql} ${page}`,
          args: [...base.args, limit],
        });
        return rs.rows.map(activityFromRow);
      }
      // A key or a user: each side seeks its own index for one page (the other filters served by none), then the
      // two pages merge.
      const rest = where(projectId, filters, query.cursor, "<", true);
      const side = (column: string) =>
        `SELECT * FROM (SELECT ${ACTIVITY_COLUMNS} FROM cloud_activity WHERE ${column} = ? AND ${rest.sql} ${page})`;
      const rs = await db.execute({
        sql: `${side("key_id")} UNION ${side("user_id")} ${page}`,
        args: [who, ...rest.args, limit, who, ...rest.args, limit, limit],
      });
      return rs.rows.map(activityFromRow);
    },
    async exportActivity(projectId, range, after, limit) {
      const base = where(projectId, range, after ?? undefined, ">");
      const rs = await db.execute({
        sql: `SELECT ${ACTIVITY_COLUMNS} FROM cloud_activity WHERE ${base.sql} ORDER BY at, id LIMIT ?`,
        args: [...base.args, limit],
      });
      return rs.rows.map(activityFromRow);
    },
    async activityHours(projectId, keyId, since) {
      const rs = await db.execute({
        sql: `SELECT hour, runs, refusals FROM cloud_activity_hours
              WHERE project_id = ? AND key_id = ? AND hour >= ? AND runs > 0 ORDER BY hour`,
        args: [projectId, keyId, since.slice(0, 13)],
      });
      return rs.rows.map((row) => ({
        hour: text(row, "hour"),
        runs: integer(row, "runs"),
        refusals: integer(row, "refusals"),
      }));
    },
    async purgeActivity(now, defaultRetentionMs) {
      const projects = await db.execute(
        `SELECT p.id AS project_id, s.retention_ms AS retention_ms FROM cloud_projects p
         LEFT JOIN cloud_project_settings s ON s.project_id = p.id`,
      );
      let purged = 0;
      for (const row of projects.rows) {
        const projectId = text(row, "project_id");
        const own = textOrNull(row, "retention_ms");
        const before = new Date(now - (own === null ? defaultRetentionMs : Number(own))).toISOString();
        // Each project by its own index range: a chunk never scans another project's rows.
        purged += await deleteInChunks(db, {
          table: "cloud_activity",
          where: "project_id = ? AND at < ?",
          args: [projectId, before],
        });
        await db.execute({
          sql: "DELETE FROM cloud_activity_hours WHERE project_id = ? AND hour < ?",
          args: [projectId, before.slice(0, 13)],
        });
      }
      return purged;
    },
  };
}

/** One multi-row INSERT of records; an id already stored in the project is skipped, the stored ids returned. */
function insertRecords(projectId: string, records: readonly ActivityRecord[]): Statement {
  const row = `(${placeholders(ACTIVITY_COLUMN_COUNT + 1)})`;
  const args: SqlValue[] = [];
  for (const r of records) {
    // `at` in one form, so that text order is time order.
    args.push(projectId, ...activityValues({ ...r, at: new Date(r.at).toISOString() }));
  }
  return {
    sql: `INSERT INTO cloud_activity (${COLUMNS}) VALUES ${records.map(() => row).join(", ")}
          ON CONFLICT (project_id, id) DO NOTHING RETURNING id`,
    args,
  };
}

/**
 * The condition of a page: the project, the filters, the time range and the keyset bound. The first filter given
 * picks the index unless `noIndex` (the search's sides seek the key's or the user's index themselves).
 */
function where(
  projectId: string,
  filters: Omit<ActivityFilters, "who">,
  cursor: ActivityCursor | undefined,
  beyond: "<" | ">",
  noIndex = false,
): { sql: string; args: SqlValue[] } {
  const clauses = ["project_id = ?"];
  const args: SqlValue[] = [projectId];
  const equal = [
    ["key_id", filters.keyId],
    ["user_id", filters.userId],
    ["intent", filters.intent],
    ["outcome", filters.outcome],
  ] as const;
  // The first filter given, in this order (the most selective first), picks the index: the others are written
  // `+column`, which no index serves, so the planner never walks a whole outcome's records to find one key's.
  let indexed = noIndex;
  for (const [column, value] of equal) {
    if (value === undefined) continue;
    clauses.push(`${indexed ? "+" : ""}${column} = ?`);
    args.push(value);
    indexed = true;
  }
  if (filters.since !== undefined) {
    clauses.push("at >= ?");
    args.push(filters.since);
  }
  if (filters.until !== undefined) {
    clauses.push("at < ?");
    args.push(filters.until);
  }
  if (cursor !== undefined) {
    clauses.push(`(at, id) ${beyond} (?, ?)`);
    args.push(cursor.at, cursor.id);
  }
  return { sql: clauses.join(" AND "), args };
}
