/**
 * The keys service: minting, listing, finding by hash, revoking from any
 * source (with its audit entry in the revoke's transaction), mirroring a
 * hybrid app's record, and the revocation feed with its wake-ups.
 *
 * @module
 */
import { type AgentIdKind, type KeyRecord, mintAgentKey, type Revocation } from "../../core/contract/mod.ts";
import { type AuditActor, auditRecord } from "../audit/mod.ts";
import type { KeyRepository, MirroredKey, MirrorOutcome, MirrorReason, ProjectKey } from "./key_repository.ts";
import type { KeyCounts, KeyPage, KeyQuery } from "./key_query.ts";
import type { KeyLabel, KeyRef } from "./key_labels.ts";
import type { InboxSubscription, InboxWaiters } from "../feed/mod.ts";
import { type BulkRevokeReason, revokeSelectedKeys, revokeUserKeys } from "./key_bulk_revocation.ts";
import { notifyRevocation, revocationAudit, revokeProjectKey, subscribeToRevocations } from "./key_revocation.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** Who revokes a key at the cloud: tooling, an operator, an app for its user, or an app whose OAuth grant ended. */
export type RevokeReason = "tooling" | "dashboard" | "app" | "oauth";

/** The cloud's system actor: what the cloud does by itself (a scheduled revocation reached). */
const SYSTEM_ACTOR: AuditActor = { actor: "system", sourceAddress: null };

/** What the `/v1` routes and the dashboard do with keys. */
export interface KeyService {
  /** Stores a new key, audited (`key.create`) when `by` is given; `false` when another user holds its agentId. */
  mint(projectId: string, record: KeyRecord, kind: AgentIdKind, by?: AuditActor): Promise<boolean>;
  /**
   * Mints the successor of a user's key in force (same name, scopes, agentId; `expiresAt` its expiry) and schedules
   * the old key's revocation `graceMinutes` from now (reason `reroll` when reached), audited; `null` when the user
   * has no such key in force.
   */
  reroll(
    projectId: string,
    userId: string,
    id: string,
    request: { graceMinutes: number; expiresAt(old: KeyRecord): string | null },
    by: AuditActor,
  ): Promise<{ record: KeyRecord; key: string } | null>;
  /**
   * Writes the project's scheduled revocations that are due (reason `reroll`, audited) and wakes the feed; the count
   * written, and when the next one takes effect (milliseconds on {@linkcode KeyService.now}'s clock, or `null`).
   */
  writeDueRevocations(projectId: string): Promise<{ written: number; next: number | null }>;
  /** The clock keys' expiries and scheduled revocations are checked against, in milliseconds. */
  now(): number;
  /** A user's keys, oldest first. */
  list(projectId: string, userId: string): Promise<KeyRecord[]>;
  /** The key with this hash, with its project, or `null`. */
  findByHash(hash: string): Promise<ProjectKey | null>;
  /** Revokes a key with its audit entry in one transaction; its `revokedAt`, or `null` when not the project's. */
  revoke(projectId: string, keyId: string, reason: RevokeReason, by: AuditActor): Promise<string | null>;
  /**
   * Stores a hybrid app's record; its creation (the first time) and a revoke it brings are audited in the same
   * transaction, and a revoke wakes the feed.
   */
  mirror(
    projectId: string,
    record: MirroredKey,
    by: AuditActor,
    reroll?: { at: string; successor: string },
  ): Promise<MirrorOutcome>;
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
  /** Revokes the selected keys in one transaction, each with its feed row and audit entry; the ids revoked now. */
  revokeSelected(
    projectId: string,
    ids: readonly string[],
    reason: BulkRevokeReason,
    by: AuditActor,
  ): Promise<string[]>;
  /**
   * Revokes every active key of a user in one transaction (an audit entry per key and one for the action), and sets
   * the user's watermark: a key of the user created until then whose mirror arrives later is stored revoked.
   */
  revokeAllOfUser(projectId: string, userId: string, reason: BulkRevokeReason, by: AuditActor): Promise<string[]>;
}

/**
 * Creates the keys service.
 *
 * @param storage The features' repositories.
 * @param waiters Long-poll wake-ups of the revocation feed.
 * @param now The clock of expiries and scheduled revocations, in milliseconds. Default `Date.now`.
 * @returns The service.
 */
export function createKeyService(
  storage: { keys: KeyRepository },
  waiters: InboxWaiters,
  now: () => number = PLATFORM.now,
): KeyService {
  const created = (by: AuditActor, projectId: string, record: KeyRecord, at = now()) =>
    auditRecord(by, { projectId, action: "key.create", target: record.id, detail: createdDetail(record), at });
  return {
    mint: (projectId, record, kind, by) =>
      storage.keys.insertKey(projectId, record, kind, by && created(by, projectId, record)),
    async reroll(projectId, userId, id, request, by) {
      const old = await storage.keys.findProjectKey(projectId, id);
      if (old === null || old.userId !== userId) return null;
      const at = now();
      const expiresAt = request.expiresAt(old);
      const { name, scopes, agentId } = old;
      const minted = await mintAgentKey(userId, { name, scopes, agentId, expiresAt }, at);
      const revokesAt = new Date(at + request.graceMinutes * 60_000).toISOString();
      const audit = [
        created(by, projectId, minted.record),
        auditRecord(by, {
          projectId,
          action: "key.reroll",
          target: id,
          detail: { successor: minted.record.id, revokesAt },
          at,
        }),
      ];
      const stored = await storage.keys.rerollKey(
        projectId,
        userId,
        id,
        minted.record,
        revokesAt,
        new Date(at).toISOString(),
        audit,
      );
      return stored ? minted : null;
    },
    async writeDueRevocations(projectId) {
      const at = now();
      const { written, next } = await storage.keys.writeDueRevocations(
        projectId,
        new Date(at).toISOString(),
        (keyId, revokedAt) => revocationAudit(projectId, keyId, "reroll", SYSTEM_ACTOR, Date.parse(revokedAt)),
      );
      if (written > 0) notifyRevocation(waiters, projectId);
      return { written, next: next === null ? null : Date.parse(next) };
    },
    now,
    list: (projectId, userId) => storage.keys.listKeys(projectId, userId),
    findByHash: (hash) => storage.keys.findKeyByHash(hash),
    revoke: (projectId, keyId, reason, by) =>
      revokeProjectKey({ storage, waiters }, projectId, keyId, reason, by, now()),
    async mirror(projectId, record, by, reroll) {
      // The times the app sends (never later than now): what its outbox delivers after an outage keeps when it
      // happened, with the time it was received.
      const receivedAt = now();
      const received = new Date(receivedAt).toISOString();
      const appTime = (iso: string | null) => Math.min(iso === null ? receivedAt : Date.parse(iso), receivedAt);
      const createdAt = appTime(record.createdAt);
      const revokedAt = Math.max(appTime(record.revokedAt), createdAt); // never listed before its creation
      const revoked = (reason: MirrorReason) => ({
        ...revocationAudit(projectId, record.id, reason, by, revokedAt),
        receivedAt: received,
      });
      const creation = { ...created(by, projectId, record, createdAt), receivedAt: received };
      const rerolled = reroll && auditRecord(by, {
        projectId,
        action: "key.reroll",
        target: record.id,
        detail: { successor: reroll.successor, revokesAt: record.revokesAt ?? null },
        at: appTime(reroll.at),
        receivedAt,
      });
      const outcome = await storage.keys.mirrorKey(
        projectId,
        record,
        { revoked, created: creation, rerolled },
        received,
      );
      if (outcome === "revoked") notifyRevocation(waiters, projectId);
      return outcome;
    },
    revocations: (projectId, after, limit) => storage.keys.listRevocations(projectId, after, limit),
    subscribe: (projectId) => subscribeToRevocations(waiters, projectId),
    page: (projectId, query) => storage.keys.listProjectKeys(projectId, query),
    find: (projectId, id) => storage.keys.findProjectKey(projectId, id),
    count: (projectId) => storage.keys.countKeys(projectId),
    labels: (refs) => storage.keys.keyLabels(refs),
    revokeSelected: (projectId, ids, reason, by) =>
      revokeSelectedKeys({ storage, waiters }, projectId, ids, reason, by, now()),
    revokeAllOfUser: (projectId, userId, reason, by) =>
      revokeUserKeys({ storage, waiters, now }, projectId, userId, reason, by),
  };
}

/** What a key's creation records: never a secret. */
function createdDetail(record: KeyRecord): Record<string, unknown> {
  const { name, userId, agentId, scopes } = record;
  return { name, userId, agentId, scopes, expiresAt: record.expiresAt ?? null };
}
