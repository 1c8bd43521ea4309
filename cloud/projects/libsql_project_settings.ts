/**
 * A project's settings on libSQL: its auto-revoke policy, its key lifetime bounds and its retention.
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import { parsed, textOrNull } from "../../core/db/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";
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
  /** Sets one JSON column of a project's settings (`null` clears it), with its audit entry in the same write. */
  async function setJson(
    column: "key_lifetime" | "auto_revoke",
    projectId: string,
    value: unknown,
    at: string,
    audit: AuditEntryInput | undefined,
  ): Promise<boolean> {
    const rs = await audited(db, audit, {
      sql: `INSERT INTO cloud_project_settings (project_id, ${column}, updated_at)
            SELECT id, ?, ? FROM cloud_projects WHERE id = ?
            ON CONFLICT (project_id) DO UPDATE SET ${column} = excluded.${column}, updated_at = excluded.updated_at`,
      args: [value === null ? null : JSON.stringify(value), at, projectId],
    });
    return rs.rowsAffected === 1;
  }
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
    setKeyLifetime: (projectId, lifetime, at, audit) => setJson("key_lifetime", projectId, lifetime, at, audit),
    setAutoRevoke: (projectId, policy, at, audit) => setJson("auto_revoke", projectId, policy, at, audit),
  };
}
