/**
 * The activity service: stores the batches apps ship, lists pages with their next cursor, streams the export and
 * reads a key's last 7 days by hour.
 *
 * @module
 */
import type { ActivityPage, ActivityRecord } from "../../core/contract/mod.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";
import { encodeCursor } from "./activity_query.ts";
import type { ActivityFilters, ActivityQuery } from "./activity_query.ts";
import { exportStream } from "./activity_export.ts";
import type { ActivityHour, ActivityRepository } from "./libsql_activity.ts";

/** The hours of a key's chart: the last 7 days. */
export const CHART_HOURS = 7 * 24;

/** Records kept when a project has no retention of its own: 30 days, as an app keeps them. */
export const DEFAULT_ACTIVITY_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** What a batch stored: the ids in the order of the records, and which were already stored. */
export interface RecordedBatch {
  /** The records' ids, in order. */
  ids: string[];
  /** Per record: `true` when its id was already stored (nothing new was stored for it). */
  duplicates: boolean[];
}

/** The activity feature. */
export interface ActivityService {
  /** Stores a batch in one transaction, each id once per project. */
  record(projectId: string, records: readonly ActivityRecord[]): Promise<RecordedBatch>;
  /** A page newest first, with the cursor of the next (older) page. */
  list(projectId: string, query: ActivityQuery): Promise<ActivityPage>;
  /** The project's records in a time range as NDJSON, oldest first, read from the database as the client reads. */
  export(projectId: string, range: Pick<ActivityFilters, "since" | "until">): ReadableStream<Uint8Array>;
  /** A key's runs and refusals per hour over the last 7 days, oldest first (hours without a run left out). */
  keyHours(projectId: string, keyId: string): Promise<ActivityHour[]>;
}

/**
 * Builds the activity service.
 *
 * @param storage The cloud's storage.
 * @param now The clock of a key's chart (default the platform's).
 * @param log Where a failure in the middle of an export goes.
 * @returns The service.
 */
export function createActivityService(
  storage: { activity: ActivityRepository },
  now: () => number = PLATFORM.now,
  log?: ErrorLogger,
): ActivityService {
  return {
    async record(projectId, records) {
      const stored = await storage.activity.addActivity(projectId, records);
      return { ids: records.map((r) => r.id), duplicates: records.map((r) => !stored.has(r.id)) };
    },
    async list(projectId, query) {
      const rows = await storage.activity.listActivity(projectId, { ...query, limit: query.limit + 1 });
      const activity = rows.slice(0, query.limit);
      const last = activity.at(-1);
      const nextCursor = rows.length > query.limit && last ? encodeCursor(last) : null;
      return { activity, nextCursor };
    },
    export: (projectId, range) => exportStream(storage.activity, projectId, range, log),
    keyHours(projectId, keyId) {
      const since = new Date(now() - (CHART_HOURS - 1) * 60 * 60 * 1000).toISOString();
      return storage.activity.activityHours(projectId, keyId, since);
    },
  };
}
