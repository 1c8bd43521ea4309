/**
 * A project's settings on libSQL: its auto-revoke policy and its retention.
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import { parsed, textOrNull } from "../../core/db/mod.ts";
import { audited } from "./libsql_projects.ts";
import type { ProjectSettings } from "./project_settings.ts";

/** The projects that keep acknowledged items for a retention of their own, as a subquery of project ids. */
export const PROJECTS_WITH_RETENTION = "SELECT project_id FROM cloud_project_settings WHERE retention_ms IS NOT NULL";

/** Each project with a retention of its own (`project_id`, `retention_ms`). */
export const PROJECT_RETENTIONS =
  "SELECT project_id, retention_ms FROM cloud_project_settings WHERE retention_ms IS NOT NULL";

/**
 * Settings queries on an executor.
 *
 * @param db The database.
 * @returns The settings part of the projects' repository.
 */
export function projectSettings(db: Executor): ProjectSettings {
  return {
    async projectPolicy(projectId) {
      const rs = await db.execute({
        sql: "SELECT auto_revoke, retention_ms, key_lifetime FROM cloud_project_settings WHERE project_id = ?",
        args: [projectId],
      });
      if (rs.rows.length === 0) return { autoRevoke: null, retentionMs: null, keyLifetime: null };
      const row = rs.rows[0];
      const retention = textOrNull(row, "retention_ms");
      return {
        autoRevoke: textOrNull(row, "auto_revoke") === null ? null : parsed(row, "auto_revoke"),
        retentionMs: retention === null ? null : Number(retention),
        keyLifetime: textOrNull(row, "key_lifetime") === null ? null : parsed(row, "key_lifetime"),
      };
    },
    async setKeyLifetime(projectId, lifetime, at, audit) {
      const rs = await audited(db, audit, {
        sql: `INSERT INTO cloud_project_settings (project_id, key_lifetime, updated_at)
              SELECT id, ?, ? FROM cloud_projects WHERE id = ?
              ON CONFLICT (project_id) DO UPDATE SET key_lifetime = excluded.key_lifetime, updated_at = excluded.updated_at`,
        args: [lifetime === null ? null : JSON.stringify(lifetime), at, projectId],
      });
      return rs.rowsAffected === 1;
    },
    async setAutoRevoke(projectId, policy, at, audit) {
      const rs = await audited(db, audit, {
        sql: `INSERT INTO cloud_project_settings (project_id, auto_revoke, updated_at)
              SELECT id, ?, ? FROM cloud_projects WHERE id = ?
              ON CONFLICT (project_id) DO UPDATE SET auto_revoke = excluded.auto_revoke, updated_at = excluded.updated_at`,
        args: [policy === null ? null : JSON.stringify(policy), at, projectId],
      });
      return rs.rowsAffected === 1;
    },
  };
}
