/**
 * The storage interface of the cloud: what the `/v1` handlers need, in the
 * words of the domain, with no SQL. {@linkcode openCloudStorage} in
 * `libsql_storage.ts` implements it on libSQL.
 *
 * @module
 */
import type { Severity, Violation as ViolationRecord } from "../../core/contract/mod.ts";
import type { InboxItem } from "../../core/contract/mod.ts";
import type { AgentIdKind, KeyRecord } from "../../core/contract/mod.ts";
import type { OperatorStorage } from "../operators/mod.ts";
import type { AuditEntryInput, AuditRepository, AuditStorage } from "../audit/mod.ts";
import type { KeyRepository } from "../keys/mod.ts";
import type { ProjectRepository } from "../projects/mod.ts";
import type { ViolationRepository } from "../violations/mod.ts";
import type { InboxRepository } from "../inbox/mod.ts";
import type { OperatorRepository } from "../operators/mod.ts";
import type { ProjectAdminStorage, ProjectSettings } from "../projects/mod.ts";
import type { KeyReads } from "../keys/mod.ts";
import type { InboxReads } from "../inbox/mod.ts";
import type { AutoRevoking, ViolationChart } from "../violations/mod.ts";
import type { RevocationStorage } from "../keys/mod.ts";
import type { RevocationReason } from "../../core/contract/mod.ts";

/** How long a key's `lastUsedAt` may lag behind its use, to spare a write on every request. */
export const KEY_TOUCH_INTERVAL_MS = 60_000;

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

/** One intent of the stored manifest, as uploaded. */
export interface ManifestIntent {
  /** Intent name. */
  name: string;
  /** Display title. */
  title: string;
  /** Scopes a key must hold. */
  requiredScopes: string[];
  /** JSON Schema of the payload. */
  input: Record<string, unknown>;
  /** JSON Schema of the result. */
  output: Record<string, unknown>;
}

/** A project's stored manifest. */
export interface Manifest {
  /** The intents. */
  intents: ManifestIntent[];
  /** The scopes the application supports. */
  scopes: string[];
  /** ISO 8601, or `null` before the first upload. */
  updatedAt: string | null;
}

/** The severities of a violation, and a violation as stored and listed: the app side's. */
export type { Severity, ViolationRecord };

/** Filters and page of a violations query; `since` is inclusive. */
export interface ViolationQuery {
  /** Only this key's. */
  keyId?: string;
  /** Only this kind. */
  kind?: string;
  /** Only this severity. */
  severity?: Severity;
  /** Only at or after this ISO 8601 time (normalised to UTC with milliseconds). */
  since?: string;
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** A page of violations and the count of all matches. */
export interface ViolationPage {
  /** Newest first, ties by id. */
  violations: ViolationRecord[];
  /** Count of every match. */
  total: number;
}

/** An event as posted by the application. */
export interface EventInput {
  /** Chosen by the application, unique per project. */
  eventId: string;
  /** Event kind. */
  type: string;
  /** Target inbox. */
  agentId: string;
  /** Free-form. */
  payload: Record<string, unknown>;
}

/** What storing one event did. */
export interface AppendResult {
  /** The event's id. */
  eventId: string;
  /** The inbox item holding it (the first one, for a duplicate). */
  inboxId: number;
  /** `true` when the eventId was already known. */
  duplicate: boolean;
  /** The inbox it went to (the first one's, for a duplicate). */
  agentId: string;
}

/** An inbox item as delivered. */
export type { InboxItem };

/** What the mirror of a key did: `revoked` when it was stored and revoked a key that was active (or new). */
export type MirrorOutcome = "stored" | "revoked" | "hash_taken" | "agent_taken";

/** A key found by its hash, with its project. */
export interface ProjectKey {
  /** The project holding the key. */
  projectId: string;
  /** The record. */
  record: KeyRecord;
}

/** What {@linkcode CloudRepositories.inboxesFilledAfter} found. */
export interface FilledInboxes {
  /** The newest inbox id stored (0 when none ever was). */
  latest: number;
  /** The inboxes with items after the given id. */
  inboxes: { projectId: string; agentId: string }[];
}

/** The columns of a key that agent auth reads. */
export interface KeyAuth {
  /** The key. */
  id: string;
  /** Its project. */
  projectId: string;
  /** The inbox it reads. */
  agentId: string;
  /** ISO 8601, or `null` while active. */
  revokedAt: string | null;
  /** ISO 8601, or `null` when never used. */
  lastUsedAt: string | null;
}

/** Every method of the features' repositories, declared once: each feature picks its own. */
export interface CloudStorageMethods
  extends
    OperatorStorage,
    AuditStorage,
    ProjectAdminStorage,
    ProjectSettings,
    RevocationStorage,
    KeyReads,
    InboxReads,
    ViolationChart,
    AutoRevoking {
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

  /** Stores a violation. */
  addViolation(projectId: string, violation: ViolationRecord): Promise<void>;
  /** Stores violations in one transaction. */
  addViolations(projectId: string, violations: readonly ViolationRecord[]): Promise<void>;
  /** Deletes violations recorded before `before`, in every project; the count deleted. */
  purgeViolations(before: string): Promise<number>;
  /** A page of the project's violations. */
  listViolations(projectId: string, query: ViolationQuery): Promise<ViolationPage>;

  /** Stores a new key, claiming its agentId when `kind` is `claim`; `false` when another user holds the agentId. */
  insertKey(projectId: string, record: KeyRecord, kind: AgentIdKind): Promise<boolean>;
  /**
   * Stores or updates a mirrored key; a revoked record stays revoked; an agt_ id another user holds is refused,
   * and so is a record whose id or hash another of this project's records holds. Ids and hashes are unique per
   * project: what other projects hold never changes the outcome. When the mirror revokes the key, `audit` is
   * appended in the same transaction.
   */
  mirrorKey(projectId: string, record: KeyRecord, audit?: AuditEntryInput): Promise<MirrorOutcome>;
  /** A user's keys, oldest first. */
  listKeys(projectId: string, userId: string): Promise<KeyRecord[]>;
  /**
   * Revokes a key (keeping the first revocation time and reason) and, when it was active, appends it to
   * the project's revocation feed and appends `audit` to the audit log, in the same transaction; its
   * `revokedAt` (equal to `at` when this call revoked it), or `null` when not the project's.
   */
  revokeKey(
    projectId: string,
    id: string,
    at: string,
    reason: RevocationReason,
    audit?: AuditEntryInput,
  ): Promise<string | null>;
  /**
   * The key with this hash, with its project, or `null`. When several projects hold the hash, the first
   * holder's (the record stored first), active or revoked: a later copy never answers for the key.
   */
  findKeyByHash(hash: string): Promise<ProjectKey | null>;
  /** What agent auth needs of the key with this hash (the first holder's, as {@linkcode findKeyByHash}), or `null`: one narrow read. */
  findKeyAuth(hash: string): Promise<KeyAuth | null>;
  /** Records a use of the project's key, at most once a minute. */
  touchKey(projectId: string, id: string, at: string): Promise<void>;

  /** Stores events and their inbox items in one transaction, deduplicating by eventId. */
  appendEvents(projectId: string, events: EventInput[], at: string): Promise<AppendResult[]>;
  /** Waiting items of one inbox after `cursor`, ascending, counting the delivery. */
  listInbox(projectId: string, agentId: string, cursor: number, limit: number): Promise<InboxItem[]>;
  /** Acknowledges items of one inbox; the count of items newly acknowledged. */
  acknowledge(projectId: string, agentId: string, inboxIds: number[], at: string): Promise<number>;
  /** Deletes items acknowledged before `before` (before now minus its own retention for a project that has one), with their events; the count deleted. */
  purgeAcknowledged(before: string): Promise<number>;
  /**
   * The inboxes that received items after `inboxId` (by any process), and the newest inbox id:
   * one range read for every waiting poll of this node. Start with `inboxId` -1 to learn the newest id only.
   */
  inboxesFilledAfter(inboxId: number): Promise<FilledInboxes>;
  /**
   * Changes when another connection may have committed (`PRAGMA data_version` on a local file; 0 for
   * `:memory:`); `null` when it cannot tell (remote), so callers look again on a timer.
   */
  dataVersion(): number | null;
}

/** The features' repositories over one database, opened once. */
export interface CloudRepositories {
  /** Projects, their secrets, manifests and administration. */
  projects: ProjectRepository;
  /** Agent keys, their claims and the revocation feed. */
  keys: KeyRepository;
  /** Violations, their chart and the auto-revoke policy. */
  violations: ViolationRepository;
  /** Events and inboxes. */
  inbox: InboxRepository;
  /** Operators, sessions and the setup token. */
  operators: OperatorRepository;
  /** The audit log. */
  audit: AuditRepository;
  /** Writes what is pending and closes the database when it was opened here. */
  close(): Promise<void>;
}

export type {
  OperatorChanges,
  OperatorRecord,
  OperatorRole,
  OperatorStorage,
  SessionRecord,
  SetupTokenRecord,
} from "../operators/mod.ts";
export type { ProjectPolicy } from "../projects/mod.ts";
export type { AutoRevokeOutcome } from "../violations/mod.ts";
export type { RevocationStorage } from "../keys/mod.ts";
export type { AuditEntry, AuditEntryInput, AuditPage, AuditQuery, AuditStorage } from "../audit/mod.ts";
export type { ProjectAdminStorage } from "../projects/mod.ts";
export type { KeyCounts, KeyPage, KeyQuery, KeyStatus } from "../keys/mod.ts";
export type { InboxBacklog, InboxItemStatus, InboxPage, InboxQuery, PeekedInboxItem } from "../inbox/mod.ts";
export type { BucketUnit, ViolationBucket } from "../violations/mod.ts";
