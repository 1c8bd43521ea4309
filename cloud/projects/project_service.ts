/**
 * The projects service: creating, renaming and deleting projects, rotating
 * their sdkSecret (each with its audit entry in its own transaction), and the
 * project's manifest.
 *
 * @module
 */
import type { AuditActor } from "../audit/mod.ts";
import type { ProjectRecord, ProjectRepository } from "./project_repository.ts";
import type { Manifest } from "../../core/contract/mod.ts";
import { createProject, deleteProject, type NewProject, renameProject, rotateSdkSecret } from "./projects.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the `/v1` routes, the dashboard and the command line do with projects. */
export interface ProjectService {
  /** Creates a project with a fresh sdkSecret. */
  create(name: string, by: AuditActor): Promise<NewProject>;
  /** The project, or `null`. */
  find(projectId: string): Promise<ProjectRecord | null>;
  /** Every project, oldest first. */
  list(): Promise<ProjectRecord[]>;
  /** Replaces the sdkSecret; the new one, or `null` when the project is unknown. */
  rotateSecret(projectId: string, by: AuditActor): Promise<string | null>;
  /** Renames a project; `false` when unknown. */
  rename(projectId: string, name: string, by: AuditActor): Promise<boolean>;
  /** Deletes a project with everything it holds; `false` when unknown. */
  delete(projectId: string, by: AuditActor): Promise<boolean>;
  /** Replaces the project's manifest. */
  putManifest(projectId: string, manifest: Manifest & { updatedAt: string }): Promise<void>;
  /** The project's manifest (empty before the first upload). */
  manifest(projectId: string): Promise<Manifest>;
}

/**
 * Creates the projects service.
 *
 * @param storage The features' repositories.
 * @param now The clock of a project's creation, in milliseconds (default the platform's).
 * @returns The service.
 */
export function createProjectService(
  storage: { projects: ProjectRepository },
  now: () => number = PLATFORM.now,
): ProjectService {
  return {
    create: (name, by) => createProject(storage, name, by, now()),
    find: (projectId) => storage.projects.findProject(projectId),
    list: () => storage.projects.listProjects(),
    rotateSecret: (projectId, by) => rotateSdkSecret(storage, projectId, by),
    rename: (projectId, name, by) => renameProject(storage, projectId, name, by),
    delete: (projectId, by) => deleteProject(storage, projectId, by),
    putManifest: (projectId, manifest) => storage.projects.putManifest(projectId, manifest),
    manifest: (projectId) => storage.projects.getManifest(projectId),
  };
}
