/**
 * Agent keys, their claims and the revocation feed: what the feature's repository offers, with no SQL; all the SQL of its tables is behind it, on libSQL in
 * this folder.
 *
 * @module
 */
import type { AgentIdKind, KeyRecord, RevocationReason } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";
import type { KeyAuth } from "../routes/mod.ts";
import type { KeyReads } from "./key_query.ts";
import type { KeyLabelReads } from "./key_labels.ts";
import type { RevocationStorage } from "./revocation_storage.ts";
import type { BulkRevocationStorage } from "./bulk_revocation_storage.ts";

/** What the mirror of a key did: `revoked` when it was stored and revoked a key that was active (or new). */
export type MirrorOutcome = "stored" | "revoked" | "hash_taken" | "agent_taken";

/** A key found by its hash, with its project. */
export interface ProjectKey {
  /** The project holding the key. */
  projectId: string;
  /** The record. */
  record: KeyRecord;
}

/**
 * A key record as a hybrid app mirrors it: why it was revoked, when it was (`app` when absent; the cloud sets a
 * revoke-all's reason on a key its watermark revokes).
 */
export type MirroredKey = KeyRecord & { revokeReason?: MirrorReason };

/** Why a mirrored key is revoked: never `auto` (an app's auto-revoke mirrors as its user's revoke). */
export type MirrorReason = Exclude<RevocationReason, "auto">;

/** The audit entries a mirror may append, each when what it records happened in this write. */
export interface MirrorAudit {
  /** The key's `key.revoke`, given the reason it is revoked with (its record's, or its user's revoke-all watermark's). */
  revoked?: (reason: MirrorReason) => AuditEntryInput;
  /** The key's `key.create`. */
  created?: AuditEntryInput;
  /** The key's `key.reroll`, sent with the record of a key the app rerolled. */
  rerolled?: AuditEntryInput;
}

/** Agent keys, their claims and the revocation feed: the repository. */
export interface KeyRepository extends RevocationStorage, KeyReads, KeyLabelReads, BulkRevocationStorage {
  /**
   * Stores a new key, claiming its agentId when `kind` is `claim`; `false` when another user holds the agentId.
   * `audit` (its `key.create`) is appended in the same write when the key is stored.
   */
  insertKey(projectId: string, record: KeyRecord, kind: AgentIdKind, audit?: AuditEntryInput): Promise<boolean>;
  /**
   * Stores the successor of a user's key and schedules the old key's revocation at `revokesAt` (an earlier
   * schedule is kept), with `audit` entries appended, in one write; only while the old key is in force at `now`
   * (ISO 8601): `false` when it is not (unknown, another user's, revoked, expired or past its grace).
   */
  rerollKey(
    projectId: string,
    userId: string,
    id: string,
    record: KeyRecord,
    revokesAt: string,
    now: string,
    audit: readonly AuditEntryInput[],
  ): Promise<boolean>;
  /**
   * Writes the project's scheduled revocations due at `now` (ISO 8601) as revocations at their scheduled time,
   * reason `reroll` (so the feed carries them), each with `audit(keyId, revokedAt)`, after one read (the earliest
   * hundred): the count written, and when the next one not yet due takes effect (ISO 8601, or `null`).
   */
  writeDueRevocations(
    projectId: string,
    now: string,
    audit: (keyId: string, revokedAt: string) => AuditEntryInput,
  ): Promise<{ written: number; next: string | null }>;
  /**
   * Stores or updates a mirrored key; a revoked record stays revoked; an active record of a key created at or
   * before its user's revoke-all watermark is stored revoked then, with the revoke-all's reason (the feed carries
   * it); an agt_ id another user holds is refused,
   * and so is a record whose id or hash another of this project's records holds. Ids and hashes are unique per
   * project: what other projects hold never changes the outcome. In the same transaction, when stored: the
   * audit entry `revoked` when the mirror revokes the key, `created` when it stores the key for the first time,
   * and `rerolled` (a `key.reroll`) unless the log already has that reroll (same key and successor). Its expiry
   * and scheduled revocation are kept (an earlier expiry or schedule wins). A key of an OAuth grant (`grantId`) gets
   * its grant: it is stored revoked (`oauth`) when the grant ended here; when it was created at or before the
   * watermark, in whatever state it arrives, the grant ends at `at` (its keys still active revoked) and the feed
   * carries the key with the revoke-all's reason; the grant's keys revoked an hour before this one's creation are
   * deleted. `revoked` then says the feed has a new row.
   */
  mirrorKey(projectId: string, record: MirroredKey, audit?: MirrorAudit, at?: string): Promise<MirrorOutcome>;
  /** A user's keys, oldest first. */
  listKeys(projectId: string, userId: string): Promise<KeyRecord[]>;
  /**
   * Revokes a key (keeping the first revocation time and reason) and, when it was active, appends it to
   * the project's revocation feed and appends `audit` to the audit log, in the same transaction (a key of an OAuth
   * grant revoked already, by any reason but `oauth`, is appended to the feed again, with this reason); its
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
  /** Moves the project's keys' `lastUsedAt` forward (never back), in one transaction; the count of keys updated. */
  mirrorKeyUses(projectId: string, uses: readonly KeyUse[]): Promise<number>;
}

/** One key's use as a hybrid app mirrors it. */
export interface KeyUse {
  /** The key's id. */
  id: string;
  /** ISO 8601 (UTC with milliseconds) of its latest use at the app. */
  lastUsedAt: string;
}
