/**
 * The keys service: minting, listing, finding by hash, revoking from any
 * source (with its audit entry in the revoke's transaction), mirroring a
 * hybrid app's record, and the revocation feed with its wake-ups.
 *
 * @module
 */
import type { AgentIdKind, KeyRecord, Revocation } from "../../core/contract/mod.ts";
import type { AuditActor } from "../audit/mod.ts";
import type { KeyRepository, MirrorOutcome, ProjectKey } from "./key_repository.ts";
import type { KeyCounts, KeyPage, KeyQuery } from "./key_query.ts";
import type { KeyLabel, KeyRef } from "./key_labels.ts";
import type { InboxSubscription, InboxWaiters } from "../inbox/mod.ts";
import { notifyRevocation, revocationAudit, revokeProjectKey, subscribeToRevocations } from "./key_revocation.ts";

/** What the `/v1` routes and the dashboard do with keys. */
export interface KeyService {
  /** Stores a new key; `false` when another user holds its agentId. */
  mint(projectId: string, record: KeyRecord, kind: AgentIdKind): Promise<boolean>;
  /** A user's keys, oldest first. */
  list(projectId: string, userId: string): Promise<KeyRecord[]>;
  /** The key with this hash, with its project, or `null`. */
  findByHash(hash: string): Promise<ProjectKey | null>;
  /** Revokes a key with its audit entry in one transaction; its `revokedAt`, or `null` when not the project's. */
  revoke(projectId: string, keyId: string, reason: "tooling" | "dashboard", by: AuditActor): Promise<string | null>;
  /** Stores a hybrid app's record; a revoke it brings is audited in the same transaction and wakes the feed. */
  mirror(projectId: string, record: KeyRecord, by: AuditActor): Promise<MirrorOutcome>;
  /** The project's revocations after `after`, ascending. */
  revocations(projectId: string, after: number, limit: number): Promise<Revocation[]>;
  /** Listens for the project's next revocation in this process. */
  subscribe(projectId: string): InboxSubscription;
  /** A page of the project's keys across users, newest first (the dashboard's list). */
  page(projectId: string, query: KeyQuery): Promise<KeyPage>;
  /** The project's key with this id, or `null`. */
  find(projectId: string, id: string): Promise<KeyRecord | null>;
  /** The project's keys by state. */
  count(projectId: string): Promise<KeyCounts>;
  /** The name and user of these keys (those that exist), by `keyLabelId`: one read for a page's rows. */
  labels(refs: readonly KeyRef[]): Promise<Map<string, KeyLabel>>;
}

/**
 * Creates the keys service.
 *
 * @param storage The features' repositories.
 * @param waiters Long-poll wake-ups of the revocation feed.
 * @returns The service.
 */
export function createKeyService(storage: { keys: KeyRepository }, waiters: InboxWaiters): KeyService {
  return {
    mint: (projectId, record, kind) => storage.keys.insertKey(projectId, record, kind),
    list: (projectId, userId) => storage.keys.listKeys(projectId, userId),
    findByHash: (hash) => storage.keys.findKeyByHash(hash),
    revoke: (projectId, keyId, reason, by) => revokeProjectKey({ storage, waiters }, projectId, keyId, reason, by),
    async mirror(projectId, record, by) {
      const audit = revocationAudit(projectId, record.id, "app", by, Date.now());
      const outcome = await storage.keys.mirrorKey(projectId, record, audit);
      if (outcome === "revoked") notifyRevocation(waiters, projectId);
      return outcome;
    },
    revocations: (projectId, after, limit) => storage.keys.listRevocations(projectId, after, limit),
    subscribe: (projectId) => subscribeToRevocations(waiters, projectId),
    page: (projectId, query) => storage.keys.listProjectKeys(projectId, query),
    find: (projectId, id) => storage.keys.findProjectKey(projectId, id),
    count: (projectId) => storage.keys.countKeys(projectId),
    labels: (refs) => storage.keys.keyLabels(refs),
  };
}
