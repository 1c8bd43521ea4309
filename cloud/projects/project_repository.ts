/**
 * Projects, their secrets, manifests and administration: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** Projects, their secrets, manifests and administration: the repository. */
export type ProjectRepository = Pick<
  CloudStorageMethods,
  | "createProject"
  | "findProject"
  | "projectSecretHash"
  | "listProjects"
  | "rotateProjectSecret"
  | "putManifest"
  | "getManifest"
  | "renameProject"
  | "deleteProject"
  | "setProjectRetention"
  | "projectPolicy"
  | "setAutoRevoke"
>;
