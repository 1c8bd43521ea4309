/**
 * The cloud's storage on libSQL: one implementation of {@linkcode CloudStorage}
 * for `:memory:`, `file:` and remote (`libsql://`, `http://`) databases.
 *
 * @module
 */
import { type DatabaseInput, migrate, openDatabase } from "../../core/db/database.ts";
import { createGroupCommit } from "../../core/db/group_commit.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "./cloud_migrations.ts";
import type { CloudStorage } from "./cloud_storage.ts";
import { eventStorage } from "../inbox/libsql_events.ts";
import { keyStorage } from "../keys/libsql_keys.ts";
import { projectStorage } from "../projects/libsql_projects.ts";
import { violationStorage } from "../violations/libsql_violations.ts";
import { operatorStorage } from "../operators/libsql_operators.ts";
import { auditStorage } from "../audit/libsql_audit.ts";
import { projectAdministration } from "../projects/libsql_project_admin.ts";
import { projectReads } from "../projects/libsql_project_reads.ts";
import { revocationStorage } from "../keys/libsql_revocations.ts";

/** Options of {@linkcode openCloudStorage}. */
export interface CloudStorageOptions {
  /** Auth token of a remote database (Turso). */
  authToken?: string;
}

/**
 * Opens the cloud's database and brings its schema to the newest version.
 *
 * @param db A libSQL URL or a Client (an injected Client is not closed by {@linkcode CloudStorage.close}).
 * @param options The auth token of a remote database.
 * @returns The storage.
 * @throws {Error} When the database schema is newer than this build knows.
 */
export async function openCloudStorage(db: DatabaseInput, options: CloudStorageOptions = {}): Promise<CloudStorage> {
  const executor = await openDatabase(db, { authToken: options.authToken });
  try {
    await migrate(executor, CLOUD_MIGRATIONS_TABLE, cloudMigrations);
  } catch (error) {
    executor.close();
    throw error;
  }
  // Single events, violations and key touches arriving together share one transaction.
  const group = createGroupCommit(executor);
  const events = eventStorage(executor, group);
  return {
    ...projectStorage(executor),
    ...keyStorage(executor, group),
    ...violationStorage(executor, group),
    ...events,
    ...operatorStorage(executor),
    ...auditStorage(executor),
    ...projectAdministration(executor),
    ...projectReads(executor, () => events.flushDeliveries()),
    ...revocationStorage(executor),
    async close() {
      await events.flushDeliveries();
      await group.flush();
      executor.close();
    },
  };
}
