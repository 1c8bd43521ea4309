/**
 * Projects, their secrets, manifests, administration and settings: what the feature's repository offers, with no SQL; all the SQL of its tables is behind it, on libSQL in
 * this folder.
 *
 * @module
 */
import type { Manifest } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";
import type { ProjectAdminStorage } from "./project_admin_storage.ts";
import type { ProjectSettings } from "./project_settings.ts";

/** A project as stored: its sdkSecret only as a hash. */
export interface ProjectRecord {
  /** `prj_` + ULID. */
  id: string;
  /** Display name. */
  name: string;
  /** SHA-256 of the current sdkSecret, hex. */
  secretHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601 of the last rotation, or `null`. */
  secretRotatedAt: string | null;
}

/** Projects, their secrets, manifests, administration and settings: the repository. */
export interface ProjectRepository extends ProjectAdminStorage, ProjectSettings {
  /** Stores a new project, with its audit entry in the same transaction. */
  createProject(project: ProjectRecord, audit?: AuditEntryInput): Promise<void>;
  /** The project, or `null`. */
  findProject(id: string): Promise<ProjectRecord | null>;
  /** The hash of the project's current secret, or `null`: the one narrow read of SDK auth. */
  projectSecretHash(id: string): Promise<string | null>;
  /** Every project, oldest first. */
  listProjects(): Promise<ProjectRecord[]>;
  /** Replaces a project's secret hash, with its audit entry in the same transaction; `false` when the project is unknown. */
  rotateProjectSecret(id: string, secretHash: string, at: string, audit?: AuditEntryInput): Promise<boolean>;

  /** Replaces the project's manifest. */
  putManifest(projectId: string, manifest: Manifest & { updatedAt: string }): Promise<void>;
  /** The project's manifest (empty before the first upload). */
  getManifest(projectId: string): Promise<Manifest>;
}
