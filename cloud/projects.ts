/**
 * Creating projects and rotating their sdkSecret: what the command line (and
 * a dashboard) does. The plaintext secret is returned once and never stored.
 *
 * @module
 */
import { ulid } from "ulid";
import { hashSecret, mintSecret, SDK_SECRET_PREFIX } from "../core/contract/secrets.ts";
import type { CloudStorage, ProjectRecord } from "./storage/cloud_storage.ts";

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
 * @returns The project and its secret.
 */
export async function createProject(storage: CloudStorage, name: string): Promise<NewProject> {
  const sdkSecret = mintSecret(SDK_SECRET_PREFIX);
  const project: ProjectRecord = {
    id: `prj_${ulid()}`,
    name,
    secretHash: await hashSecret(sdkSecret),
    createdAt: new Date().toISOString(),
    secretRotatedAt: null,
  };
  await storage.createProject(project);
  return { project, sdkSecret };
}

/**
 * Replaces a project's sdkSecret; the old one stops working on the next request.
 *
 * @param storage The cloud's storage.
 * @param projectId The project.
 * @returns The new secret, or `null` when the project is unknown.
 */
export async function rotateSdkSecret(storage: CloudStorage, projectId: string): Promise<string | null> {
  const sdkSecret = mintSecret(SDK_SECRET_PREFIX);
  const rotated = await storage.rotateProjectSecret(projectId, await hashSecret(sdkSecret), new Date().toISOString());
  return rotated ? sdkSecret : null;
}
