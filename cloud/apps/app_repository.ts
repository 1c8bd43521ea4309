/**
 * The connected apps' repository: every statement on `cloud_apps` (migration 9), and the
 * `lastUsedAt` a hybrid app mirrors onto its keys.
 *
 * @module
 */
import type { Executor, SqlRow } from "../../core/db/mod.ts";
import { integer, text, textOrNull } from "../../core/db/mod.ts";
import type { AppIdentity, AppMode } from "./app_identity.ts";

/** An app instance as stored. */
export interface StoredApp extends AppIdentity {
  /** ISO 8601 of its first poll. */
  firstSeenAt: string;
  /** ISO 8601 of its latest recorded poll. */
  lastSeenAt: string;
  /** The `after` of its latest recorded poll: the newest revocation it had heard of. */
  cursor: number;
}

/** One key's use as a hybrid app mirrors it. */
export interface KeyUse {
  /** The key's id. */
  id: string;
  /** ISO 8601 (UTC with milliseconds) of its latest use at the app. */
  lastUsedAt: string;
}

/** What the connected apps feature stores. */
export interface AppRepository {
  /** Records a poll of an app instance: first seen now when new, else its identity, last seen and cursor updated. */
  recordAppPoll(projectId: string, app: AppIdentity, cursor: number, at: string): Promise<void>;
  /** The project's app instances, most recently seen first. */
  listApps(projectId: string): Promise<StoredApp[]>;
  /** Deletes the app instances (of every project) not seen since `before`; the count deleted. */
  purgeApps(before: string): Promise<number>;
  /** Moves the project's keys' `lastUsedAt` forward (never back), in one transaction; the count of keys updated. */
  mirrorKeyUses(projectId: string, uses: readonly KeyUse[]): Promise<number>;
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
          `INSERT INTO cloud_apps (project_id, instance_id, label, mode, sdk_version, first_seen_at, last_seen_at, cursor)
              VALUES (?, ?, ?, ?, ?, ?, ?, ?)
              ON CONFLICT (project_id, instance_id) DO UPDATE SET label = excluded.label, mode = excluded.mode,
                sdk_version = excluded.sdk_version, cursor = excluded.cursor,
                last_seen_at = MAX(last_seen_at, excluded.last_seen_at)`,
        args: [projectId, app.instanceId, app.label, app.mode, app.sdkVersion, at, at, cursor],
      });
    },
    async listApps(projectId) {
      const rs = await db.execute({
        sql: `SELECT instance_id, label, mode, sdk_version, first_seen_at, last_seen_at, cursor FROM cloud_apps
              WHERE project_id = ? ORDER BY last_seen_at DESC, instance_id`,
        args: [projectId],
      });
      return rs.rows.map(toApp);
    },
    async purgeApps(before) {
      const rs = await db.execute({ sql: "DELETE FROM cloud_apps WHERE last_seen_at < ?", args: [before] });
      return rs.rowsAffected;
    },
    async mirrorKeyUses(projectId, uses) {
      if (uses.length === 0) return 0;
      const results = await db.batch(
        uses.map(({ id, lastUsedAt }) => ({
          sql: `UPDATE cloud_keys SET last_used_at = ?
                WHERE project_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)`,
          args: [lastUsedAt, projectId, id, lastUsedAt],
        })),
        "write",
      );
      return results.reduce((n, rs) => n + rs.rowsAffected, 0);
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
  };
}
