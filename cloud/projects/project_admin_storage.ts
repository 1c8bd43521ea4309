/**
 * What an operator changes of a project beyond the `/v1` routes: rename, delete, retention.
 *
 * @module
 */
import type { AuditEntryInput } from "../audit/mod.ts";

/** Project administration. */
export interface ProjectAdminStorage {
  /** Renames a project; `false` when unknown. */
  renameProject(id: string, name: string, audit?: AuditEntryInput): Promise<boolean>;
  /**
   * Deletes a project with its keys, claims, manifest, violations, events and settings, and appends `audit`,
   * in one transaction; `false` (and nothing written) when unknown.
   */
  deleteProject(id: string, audit: AuditEntryInput): Promise<boolean>;
  /** Sets (or, with `null`, clears) the project's retention; `false` when the project is unknown. */
  setProjectRetention(id: string, retentionMs: number | null, at: string, audit?: AuditEntryInput): Promise<boolean>;
}
