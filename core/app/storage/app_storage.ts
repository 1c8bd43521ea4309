/**
 * What the app side stores: agent keys and, in local mode, violations. The
 * handlers see this interface, never SQL.
 *
 * @module
 */
import type { AgentIdKind, KeyRecord } from "../../contract/mod.ts";
import type { ApprovalStep, Violation } from "../../contract/mod.ts";
import type { AutoRevokePolicy } from "../../contract/mod.ts";
import type { ActivityRecord } from "../../contract/mod.ts";
import type { Executor } from "../../db/mod.ts";
import type { ActivityWrite } from "./libsql_activity.ts";

/** Something queued for the cloud: a key record to mirror (by id), a violation or an activity record to report. */
export interface OutboxItem {
  /** Order of sending. */
  seq: number;
  /** What to send. */
  kind: "key" | "violation" | "approval" | "activity";
  /** The key id, the violation id, an activity record's id, or an approval step's `approvalId:status`. */
  ref: string;
  /**
   * A violation's report, an activity record or an approval's step as JSON; for a key (read from its table when sent, to send its latest state), what
   * else the item tells the cloud, as JSON (`{ reroll: { at, successor } }`), or `null`.
   */
  body: string | null;
  /** Failed attempts so far. */
  attempts: number;
}

/** What {@linkcode AppStorage.purgeOutbox} deletes. */
export interface OutboxPurge {
  /** Set-aside reports made before this time (ISO 8601) are deleted. */
  setAsideBefore: string;
  /** The most violation reports kept, waiting or set aside. */
  limit: number;
}

/** A revocation of the cloud's feed, as applied: the key, when, and why (absent: as `app`). */
export interface FeedRevocation {
  /** The key. */
  keyId: string;
  /** ISO 8601. */
  revokedAt: string;
  /** Why: `oauth` is the OAuth server's own revoke, which ends no grant here. */
  reason?: string;
}

/** Whether a write also queues its record for the cloud, in the same transaction. */
export interface MirrorOption {
  /** Queue the record in the outbox (hybrid mode). */
  mirror?: boolean;
}

/** The app side's storage. */
export interface AppStorage {
  /** The database, for a feature that keeps its own tables beside the keys (OAuth grants); its SQL stays in it. */
  readonly db: Executor;
  /**
   * Stores a new key. For an `agt_` agentId (`kind` "claim") the id is claimed
   * for the key's user in the same write, and nothing is stored when another
   * user holds it.
   *
   * @returns `false` when the agentId belongs to another user.
   */
  insertKey(record: KeyRecord, kind: AgentIdKind, options?: MirrorOption): Promise<boolean>;
  /** The user's keys, oldest first. */
  listKeys(userId: string): Promise<KeyRecord[]>;
  /** The key with this hash, revoked or not. */
  findKeyByHash(hash: string): Promise<KeyRecord | null>;
  /**
   * Whether a key with this hash exists and when it was revoked: the one narrow read
   * every agent request makes, so a revocation by any process is seen at once.
   */
  keyRevocationByHash(hash: string): Promise<{ revokedAt: string | null } | null>;
  /**
   * Revokes the user's key at `at` (once: a revoked key keeps its first time and reason); `reason` `oauth` when
   * the OAuth server revokes it (a grant ended, or its key was replaced). Absent (its user revoked it), the key's
   * OAuth grant, if it has one, ends in the same transaction, and the grant's keys still active are revoked.
   *
   * @returns The record after revocation, or `null` when the user has no such key.
   */
  revokeKey(
    userId: string,
    id: string,
    at: string,
    options?: MirrorOption & { reason?: "oauth" },
  ): Promise<KeyRecord | null>;
  /**
   * Rerolls the user's key: stores `record` (its successor, same agentId) and schedules the old key's revocation
   * at `revokesAt`, in one write, only while the old key is neither revoked, nor expired, nor past a scheduled
   * revocation at `now` (an earlier schedule is kept).
   *
   * @returns `false` when the user has no such key in force (nothing is stored).
   */
  rerollKey(
    userId: string,
    id: string,
    record: KeyRecord,
    revokesAt: string,
    now: string,
    options?: MirrorOption,
  ): Promise<boolean>;
  /** The key with this id (with its OAuth grant's id), and why it was revoked when that was not its user (`oauth`). */
  findKeyById(id: string): Promise<(KeyRecord & { revokeReason?: "oauth" }) | null>;
  /** Records when keys were last used, in one write. */
  touchKeys(usedAt: ReadonlyMap<string, string>): Promise<void>;
  /** Queues an approval's step for the cloud (hybrid and cloud modes): the cloud stores each (approvalId, status) once. */
  queueApprovalStep(step: ApprovalStep): Promise<void>;
  /** Stores violations, in one write. */
  insertViolations(violations: readonly Violation[], options?: MirrorOption): Promise<void>;
  /**
   * The oldest waiting items: key records first (a revocation never waits behind a
   * violation), then violations; set-aside items (refused by the cloud) are kept, never sent again.
   */
  outboxHead(limit: number): Promise<OutboxItem[]>;
  /** Removes sent items. */
  outboxDone(seqs: readonly number[]): Promise<void>;
  /** Counts a failed attempt of each item. */
  outboxFailed(seqs: readonly number[]): Promise<void>;
  /** Sets items aside: the cloud refused them for good, for `reason` (kept, never sent again). */
  outboxSetAside(seqs: readonly number[], reason: string): Promise<void>;
  /** How many items wait (not set aside). */
  outboxSize(): Promise<number>;
  /** The items set aside, counted by reason (most first). */
  outboxSetAsideByReason(): Promise<{ reason: string; count: number }[]>;
  /**
   * Deletes from the outbox the violation reports set aside (refused by the cloud) that were made
   * before `setAsideBefore`, then, while more than `limit` violation reports remain, the oldest set-aside
   * ones and then the oldest waiting ones. Key records are never deleted here. In short chunks.
   *
   * @returns How many were deleted for their age (`expired`) and over the limit (`dropped`).
   */
  purgeOutbox(options: OutboxPurge): Promise<{ expired: number; dropped: number }>;
  /** Deletes violations made before `before`, in short chunks; the count deleted. */
  purgeViolations(before: string): Promise<number>;
  /** Writes a group of activity records in one transaction: kept for reading, queued for the cloud, or both. */
  insertActivity(records: readonly ActivityRecord[], where: ActivityWrite): Promise<void>;
  /** A user's activity records, newest first (`before`: older than this id). */
  listActivity(query: { userId: string; keyId?: string; before?: string; limit: number }): Promise<ActivityRecord[]>;
  /** Deletes activity records made before `before` (ms since the epoch), in short chunks; the count deleted. */
  purgeActivity(before: number): Promise<number>;
  /** The OAuth client's name of each grant found. */
  grantClientNames(grantIds: readonly string[]): Promise<Map<string, string>>;
  /** The newest violations first. */
  listViolations(options: { limit: number; keyId?: string }): Promise<Violation[]>;
  /** The last seq of the cloud's revocation feed applied here (0 before the first). */
  revocationCursor(): Promise<number>;
  /**
   * Applies revocations from the cloud's feed and moves the cursor to `nextSeq`, in one write.
   * Idempotent; a key keeps its first revocation time. A revocation for any reason but `oauth` (the OAuth server's
   * own) ends the key's grant and revokes the grant's keys still active, queued for the cloud.
   */
  applyRevocations(revocations: readonly FeedRevocation[], nextSeq: number): Promise<void>;
  /**
   * Applies an auto-revoke policy to a key at `at`: at the threshold, revokes it and stores the
   * `AUTO_REVOKED` violation, in one transaction (queued for the cloud with `mirror`).
   *
   * @returns The `AUTO_REVOKED` violation, or `null` when the key stays active.
   */
  autoRevoke(keyId: string, policy: AutoRevokePolicy, at: string, options?: MirrorOption): Promise<Violation | null>;
  /** The project's policy as last read from the cloud (JSON, as kept by `saveCloudPolicy`), or `null` before the first. */
  savedCloudPolicy(): Promise<string | null>;
  /** Keeps the project's policy as read from the cloud at `at` (ISO 8601), replacing the one kept before. */
  saveCloudPolicy(policy: string, at: string): Promise<void>;
  /** Whether the database lives in memory only (forgotten when closed): `main` has no file. */
  inMemory(): Promise<boolean>;
  /** Releases the database, when this storage opened it. */
  close(): Promise<void>;
}
