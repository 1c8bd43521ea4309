/**
 * Creating, renaming and deleting projects and rotating their sdkSecret: what
 * the command line (and the dashboard) does, each recorded in the audit log
 * in the change's own transaction.
 * The plaintext secret is returned once and never stored.
 *
 * @module
 */
import { ulid } from "ulid";
import { hashSecret, mintSecret, SDK_SECRET_PREFIX } from "../../core/contract/mod.ts";
import { type AuditActor, auditRecord, CLI_ACTOR } from "../audit/mod.ts";
import type { ProjectRecord, ProjectRepository } from "./project_repository.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** A new project and its sdkSecret, which exists only here. */
export interface NewProject {
  /** The stored project. */
  project: ProjectRecord;
  /** The `svcs_…` plaintext. */
  sdkSecret: string;
}

/**
 * Creates a project with a fresh sdkSecret.
 *
 * @param storage The cloud's storage.
 * @param name Display name.
 * @param by Who creates it (default: the command line).
 * @param now The time of its creation, in milliseconds (default the platform's clock).
 * @returns The project and its secret.
 */
export async function createProject(
  storage: { projects: ProjectRepository },
  name: string,
  by = CLI_ACTOR,
  now: number = PLATFORM.now(),
): Promise<NewProject> {
  const sdkSecret = mintSecret(SDK_SECRET_PREFIX);
  const project: ProjectRecord = {
    id: `prj_${ulid(now)}`,
    name,
    secretHash: await hashSecret(sdkSecret),
    createdAt: new Date(now).toISOString(),
    secretRotatedAt: null,
  };
  await storage.projects.createProject(
    project,
    auditRecord(by, { projectId: project.id, action: "project.create", target: project.id, detail: { name } }),
  );
  return { project, sdkSecret };
}

/**
 * Replaces a project's sdkSecret; the old one stops working on the next request.
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @param by Who rotates it (default: the command line).
 * @returns The new secret, or `null` when the project is unknown.
 */
export async function rotateSdkSecret(
  storage: { projects: ProjectRepository },
  projectId: string,
  by: AuditActor = CLI_ACTOR,
): Promise<string | null> {
  const sdkSecret = mintSecret(SDK_SECRET_PREFIX);
  const audit = auditRecord(by, { projectId, action: "project.rotate_secret", target: projectId });
  const rotated = await storage.projects.rotateProjectSecret(
    projectId,
    await hashSecret(sdkSecret),
    audit.createdAt,
    audit,
  );
  return rotated ? sdkSecret : null;
}

/**
 * Renames a project.
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @param name The new display name.
 * @param by Who renames it (default: the command line).
 * @returns `false` when the project is unknown.
 */
export async function renameProject(
  storage: { projects: ProjectRepository },
  projectId: string,
  name: string,
  by: AuditActor = CLI_ACTOR,
): Promise<boolean> {
  const before = await storage.projects.findProject(projectId);
  if (before === null) return false;
  const detail = { from: before.name, to: name };
  return await storage.projects.renameProject(
    projectId,
    name,
    auditRecord(by, { projectId, action: "project.rename", target: projectId, detail }),
  );
}

/**
 * Deletes a project with everything it holds, and records it in the audit log
 * in the same transaction; its earlier audit entries stay.
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @param by Who deletes it (default: the command line).
 * @returns `false` when the project is unknown.
 */
export async function deleteProject(
  storage: { projects: ProjectRepository },
  projectId: string,
  by: AuditActor = CLI_ACTOR,
): Promise<boolean> {
  const before = await storage.projects.findProject(projectId);
  if (before === null) return false;
  const entry = { projectId, action: "project.delete", target: projectId, detail: { name: before.name } };
  return await storage.projects.deleteProject(projectId, auditRecord(by, entry));
}
