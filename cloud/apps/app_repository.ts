/**
 * The connected apps' repository: every statement on `cloud_apps` (migration 9, its outbox depth migration 16). The `lastUsedAt` a hybrid
 * app mirrors onto its keys is written by the keys' repository, which holds the SQL of `cloud_keys`.
 *
 * @module
 */
import type { Executor, SqlRow } from "../../core/db/mod.ts";
import { integer, text, textOrNull } from "../../core/db/mod.ts";
import type { AppIdentity, AppMode } from "./app_identity.ts";

/** The connected apps' tables holding a project's rows: deleted with the project. */
export const APP_TABLES: readonly string[] = ["cloud_apps"];

/** An app instance as stored. */
export interface StoredApp extends AppIdentity {
  /** ISO 8601 of its first poll. */
  firstSeenAt: string;
  /** ISO 8601 of its latest recorded poll. */
  lastSeenAt: string;
  /** The `after` of its latest recorded poll: the newest revocation it had heard of. */
  cursor: number;
}

/** What the connected apps feature stores. */
export interface AppRepository {
  /** Records a poll of an app instance: first seen now when new, else its identity, last seen and cursor updated. */
  recordAppPoll(projectId: string, app: AppIdentity, cursor: number, at: string): Promise<void>;
  /** The project's app instances, most recently seen first. */
  listApps(projectId: string): Promise<StoredApp[]>;
  /** Every project's app instances (the metrics' feed followers), with their project. */
  listAllApps(): Promise<(StoredApp & { projectId: string })[]>;
  /** Deletes the app instances (of every project) not seen since `before`; the count deleted. */
  purgeApps(before: string): Promise<number>;
}

/**
 * The connected apps' repository on libSQL.
 *
 * @param db The database.
 * @returns The repository.
 */
export function appStorage(db: Executor): AppRepository {
  return {
    async recordAppPoll(projectId, app, cursor, at) {
      await db.execute({
        sql:
          `INSERT INTO cloud_apps (project_id, instance_id, label, mode, sdk_version, first_seen_at, last_seen_at, cursor,
                outbox_depth)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (project_id, instance_id) DO UPDATE SET label = excluded.label, mode = excluded.mode,
                sdk_version = excluded.sdk_version, cursor = excluded.cursor, outbox_depth = excluded.outbox_depth,
                last_seen_at = MAX(last_seen_at, excluded.last_seen_at)`,
        args: [projectId, app.instanceId, app.label, app.mode, app.sdkVersion, at, at, cursor, app.outboxDepth],
      });
    },
    async listAllApps() {
      const rs = await db.execute("SELECT * FROM cloud_apps");
      return rs.rows.map((row) => ({ ...toApp(row), projectId: text(row, "project_id") }));
    },
    async listApps(projectId) {
      const rs = await db.execute({
        sql:
          `SELECT instance_id, label, mode, sdk_version, first_seen_at, last_seen_at, cursor, outbox_depth FROM cloud_apps
              WHERE project_id = ? ORDER BY last_seen_at DESC, instance_id`,
        args: [projectId],
      });
      return rs.rows.map(toApp);
    },
    async purgeApps(before) {
      const rs = await db.execute({ sql: "DELETE FROM cloud_apps WHERE last_seen_at < ?", args: [before] });
      return rs.rowsAffected;
    },
  };
}

function toApp(row: SqlRow): StoredApp {
  return {
    instanceId: text(row, "instance_id"),
    label: text(row, "label"),
    mode: textOrNull(row, "mode") as AppMode | null,
    sdkVersion: textOrNull(row, "sdk_version"),
    firstSeenAt: text(row, "first_seen_at"),
    lastSeenAt: text(row, "last_seen_at"),
    cursor: integer(row, "cursor"),
    outboxDepth: row.outbox_depth === null || row.outbox_depth === undefined ? null : integer(row, "outbox_depth"),
  };
}
