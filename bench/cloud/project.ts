// A project in a cloud database, created directly through the cloud's storage.
import { createClient } from "@libsql/client";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import { createProject } from "../../cloud/projects/projects.ts";

/** A project's credentials. */
export interface BenchProject {
  /** `prj_…`. */
  projectId: string;
  /** `svcs_…`. */
  sdkSecret: string;
}

/**
 * Migrates a database and creates a project in it.
 *
 * @param db A `file:` URL.
 * @returns The project.
 */
export async function benchProject(db: string): Promise<BenchProject> {
  const client = createClient({ url: db });
  try {
    const storage = await openCloudStorage(client);
    const { project, sdkSecret } = await createProject(storage, "bench");
    return { projectId: project.id, sdkSecret };
  } finally {
    client.close();
  }
}
