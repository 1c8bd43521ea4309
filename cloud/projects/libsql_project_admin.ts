/**
 * Project administration on libSQL: rename, delete with everything the
 * project holds, and the retention setting.
 *
 * @module
 */
import type { Executor } from "../../core/db/mod.ts";
import type { ProjectAdminStorage } from "./project_admin_storage.ts";
import { auditInsert } from "../audit/mod.ts";
import { audited } from "./libsql_projects.ts";

/** The administration part of {@linkcode ProjectAdminStorage}. */
export type ProjectAdministration = Pick<
  ProjectAdminStorage,
  "renameProject" | "deleteProject" | "setProjectRetention"
>;

/** The projects' own tables holding a project's rows, deleted after the other features'. The audit log keeps its entries. */
const PROJECT_TABLES = ["cloud_manifests", "cloud_project_settings"];

/**
 * Project administration queries on an executor.
 *
 * @param db The database.
 * @param featureTables The other features' tables holding a project's rows (each feature's own list), children first.
 * @returns The administration part of the storage.
 */
export function projectAdministration(db: Executor, featureTables: readonly string[]): ProjectAdministration {
  return {
    async renameProject(id, name, audit) {
      const rs = await audited(db, audit, { sql: "UPDATE cloud_projects SET name = ? WHERE id = ?", args: [name, id] });
      return rs.rowsAffected === 1;
    },
    async deleteProject(id, audit) {
      // One batch, atomic and in one round trip: the audit entry (written only if the project exists), then
      // everything the project holds, then the project. All of it or nothing (no unaudited delete after a
      // crash, no entry for a delete that did not happen); the project's own DELETE says whether it existed.
      const exists = { sql: "EXISTS (SELECT 1 FROM cloud_projects WHERE id = ?)", args: [id] };
      const results = await db.batch([
        auditInsert(audit, exists),
        ...[...featureTables, ...PROJECT_TABLES].map((table) => ({
          sql: `DELETE FROM ${table} WHERE project_id = ?`,
          args: [id],
        })),
        { sql: "DELETE FROM cloud_projects WHERE id = ?", args: [id] },
      ], "write");
      return results[results.length - 1].rowsAffected === 1;
    },
    async setProjectRetention(id, retentionMs, at, audit) {
      const rs = await audited(db, audit, {
        sql: `INSERT INTO cloud_project_settings (project_id, retention_ms, updated_at)
              SELECT id, ?, ? FROM cloud_projects WHERE id = ?
              ON CONFLICT (project_id) DO UPDATE SET retention_ms = excluded.retention_ms, updated_at = excluded.updated_at`,
        args: [retentionMs, at, id],
      });
      return rs.rowsAffected === 1;
    },
  };
}
