/**
 * The cloud's storage on libSQL: one implementation of {@linkcode CloudRepositories}
 * for `:memory:`, `file:` and remote (`libsql://`, `http://`) databases.
 *
 * @module
 */
import { type DatabaseInput, type DatabaseOperation, migrate, openDatabase, timedExecutor } from "../core/db/mod.ts";
import { createGroupCommit } from "../core/db/mod.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "./database/mod.ts";
import { eventStorage, INBOX_TABLES, inboxReads, type InboxRepository, leaseStorage } from "./inbox/mod.ts";
import { KEY_TABLES, keyLabelReads, keyReads, type KeyRepository, keyStorage, revocationStorage } from "./keys/mod.ts";
import { projectAdministration, type ProjectRepository, projectSettings, projectStorage } from "./projects/mod.ts";
import {
  autoRevoking,
  VIOLATION_TABLES,
  violationChart,
  type ViolationRepository,
  violationStorage,
} from "./violations/mod.ts";
import {
  operatorAdministration,
  type OperatorRepository,
  type OperatorStorage,
  operatorStorage,
  sealedOperators,
  sealStoredSecrets,
  secretBox,
} from "./operators/mod.ts";
import { type AuditRepository, auditStorage } from "./audit/mod.ts";
import { ACTIVITY_TABLES, type ActivityRepository, activityStorage } from "./activity/mod.ts";
import { APP_TABLES, type AppRepository, appStorage } from "./apps/mod.ts";
import { APPROVAL_TABLES, type ApprovalRepository, approvalStorage } from "./approvals/mod.ts";

/** The features' repositories over one database, opened once. */
export interface CloudRepositories {
  /** Projects, their secrets, manifests and administration. */
  projects: ProjectRepository;
  /** Agent keys, their claims, the key uses hybrid apps mirror and the revocation feed. */
  keys: KeyRepository;
  /** Violations, their chart and the auto-revoke policy. */
  violations: ViolationRepository;
  /** Events and inboxes. */
  inbox: InboxRepository;
  /** Operators, sessions and the setup token. */
  operators: OperatorRepository;
  /** The audit log. */
  audit: AuditRepository;
  /** Connected apps. */
  apps: AppRepository;
  /** Approvals as apps report them. */
  approvals: ApprovalRepository;
  /** What agents did. */
  activity: ActivityRepository;
  /** Reads nothing but proves the database answers (the health check); throws when it does not. */
  ping(): Promise<void>;
  /** Writes what is pending and closes the database when it was opened here. */
  close(): Promise<void>;
}

/** Options of {@linkcode openCloudStorage}. */
export interface CloudStorageOptions {
  /** Auth token of a remote database (Turso). */
  authToken?: string;
  /**
   * 32 bytes in base64 that encrypt operators' TOTP secrets at rest (AES-GCM); secrets stored before it was
   * set are sealed when the storage opens. Once set, give it at every open. Default: stored as they are.
   */
  secretKey?: string;
  /** How long a write waits for another connection's lock on a `file:` database, in milliseconds (default 5000). */
  busyTimeoutMs?: number;
  /** Told how long each statement, batch and transaction took (the database latency metric). */
  observeDatabase?: (operation: DatabaseOperation, seconds: number) => void;
}

/**
 * Opens the cloud's database and brings its schema to the newest version.
 *
 * @param db A libSQL URL or a Client (an injected Client is not closed by {@linkcode CloudRepositories.close}).
 * @param options The auth token of a remote database.
 * @returns The storage.
 * @throws {Error} When the database schema is newer than this build knows.
 */
export async function openCloudStorage(
  db: DatabaseInput,
  options: CloudStorageOptions = {},
): Promise<CloudRepositories> {
  const { observeDatabase } = options;
  const opened = await openDatabase(db, {
    authToken: options.authToken,
    busyTimeoutMs: options.busyTimeoutMs,
    onLockWait: observeDatabase && ((seconds) => observeDatabase("lock_wait", seconds)),
  });
  const executor = options.observeDatabase ? timedExecutor(opened, options.observeDatabase) : opened;
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
  const { flushDeliveries: _, ...inbox } = events;
  const projectRows = [
    ...INBOX_TABLES,
    ...VIOLATION_TABLES,
    ...KEY_TABLES,
    ...APP_TABLES,
    ...APPROVAL_TABLES,
    ...ACTIVITY_TABLES,
  ];
  return {
    projects: {
      ...projectStorage(executor),
      ...projectAdministration(executor, projectRows),
      ...projectSettings(executor),
    },
    keys: {
      ...keyStorage(executor, group),
      ...revocationStorage(executor),
      ...keyReads(executor),
      ...keyLabelReads(executor),
    },
    violations: {
      ...violationStorage(executor, group),
      ...violationChart(executor),
      ...autoRevoking(executor),
    },
    inbox: { ...inbox, ...inboxReads(executor, () => events.flushDeliveries()), ...leaseStorage(executor) },
    operators: { ...operators, ...operatorAdministration(executor) },
    audit: auditStorage(executor),
    apps: appStorage(executor),
    approvals: approvalStorage(executor),
    activity: activityStorage(executor),
    async ping() {
      await executor.execute("SELECT 1");
    },
    async close() {
      await events.flushDeliveries();
      await group.flush();
      executor.close();
    },
  };
}
