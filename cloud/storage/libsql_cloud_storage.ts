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
import { eventStorage } from "./libsql_events.ts";
import { keyStorage } from "./libsql_keys.ts";
import { projectStorage } from "./libsql_projects.ts";
import { violationStorage } from "./libsql_violations.ts";
import { operatorStorage } from "./libsql_operators.ts";
import { auditStorage } from "./libsql_audit.ts";
import { projectAdministration } from "./libsql_project_admin.ts";
import { projectReads } from "./libsql_project_reads.ts";
import { revocationStorage } from "./libsql_revocations.ts";
import { sealedOperators, sealStoredSecrets, secretBox } from "./sealed_totp_secrets.ts";
import type { OperatorStorage } from "./operator_storage.ts";

/** Options of {@linkcode openCloudStorage}. */
export interface CloudStorageOptions {
  /** Auth token of a remote database (Turso). */
  authToken?: string;
  /**
   * 32 bytes in base64 that encrypt operators' TOTP secrets at rest (AES-GCM); secrets stored before it was
   * set are sealed when the storage opens. Once set, give it at every open. Default: stored as they are.
   */
  secretKey?: string;
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
  let operators: OperatorStorage = operatorStorage(executor);
  if (options.secretKey) {
    try {
      const box = await secretBox(options.secretKey);
      await sealStoredSecrets(operators, box);
      operators = sealedOperators(operators, box);
    } catch (error) {
      executor.close();
      throw error;
    }
  }
  // Single events, violations and key touches arriving together share one transaction.
  const group = createGroupCommit(executor);
  const events = eventStorage(executor, group);
  return {
    ...projectStorage(executor),
    ...keyStorage(executor, group),
    ...violationStorage(executor, group),
    ...events,
    ...operators,
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
