/**
 * Revoking a project's key at the cloud, and announcing a revocation: the
 * tooling route, a hybrid app's mirror, auto-revoke and the dashboard all end
 * here, so each one wakes the revocation feed's long polls in this process at
 * once (other processes find it at their next re-check) and is recorded in the
 * audit log in the revoke's own transaction.
 *
 * @module
 */
import type { RevocationReason } from "../../core/contract/mod.ts";
import { type AuditActor, type AuditEntryInput, auditRecord } from "../audit/mod.ts";
import { type InboxSubscription, type InboxWaiters, REVOCATION_FEED } from "../feed/mod.ts";
import type { KeyRepository } from "./key_repository.ts";

/**
 * The wake-up channel of a project's feed, on the inbox waiters: an agentId
 * can never be this (stored text holds no NUL).
 */
const FEED_CHANNEL = REVOCATION_FEED;

/** What revoking needs: the storage and the long polls' wake-ups. */
export interface RevocationServices {
  /** The cloud's storage. */
  storage: { keys: KeyRepository };
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
}

/**
 * Listens for the next revocation of a project in this process (subscribe
 * before reading the feed, so a revocation stored in between still wakes).
 *
 * @param waiters The cloud's wake-ups.
 * @param projectId The project.
 * @returns The subscription.
 */
export function subscribeToRevocations(waiters: InboxWaiters, projectId: string): InboxSubscription {
  return waiters.subscribe(projectId, FEED_CHANNEL);
}

/**
 * Wakes the feed polls of a project waiting in this process.
 *
 * @param waiters The cloud's wake-ups.
 * @param projectId The project whose key was revoked.
 */
export function notifyRevocation(waiters: InboxWaiters, projectId: string): void {
  waiters.notify(projectId, FEED_CHANNEL);
}

/**
 * The audit entry of a key's revocation.
 *
 * @param projectId The project.
 * @param keyId The revoked key.
 * @param reason Who asked: `tooling`, `app` or `dashboard` (auto-revoke records its own violation).
 * @param by Who did it, and from where.
 * @param at When, in milliseconds.
 * @returns The entry, written in the revoke's own transaction.
 */
export function revocationAudit(
  projectId: string,
  keyId: string,
  reason: Exclude<RevocationReason, "auto">,
  by: AuditActor,
  at: number,
): AuditEntryInput {
  return auditRecord(by, { projectId, action: "key.revoke", target: keyId, detail: { reason }, at });
}

/**
 * Revokes a key of a project and appends its audit entry in the same
 * transaction; only the first revoke is audited, a repeat keeps the first time.
 *
 * @param services The storage and wake-ups.
 * @param projectId The project.
 * @param keyId The key.
 * @param reason Who asks: `tooling`, `dashboard`, `app` (a cloud-mode app, for its user) or `oauth` (a grant ended).
 * @param by Who does it, and from where.
 * @param now The time, in milliseconds (the service's clock).
 * @returns When the key was revoked, or `null` when the project has no such key.
 */
export async function revokeProjectKey(
  services: RevocationServices,
  projectId: string,
  keyId: string,
  reason: "tooling" | "dashboard" | "app" | "oauth",
  by: AuditActor,
  now: number,
): Promise<string | null> {
  const at = new Date(now).toISOString();
  const audit = revocationAudit(projectId, keyId, reason, by, now);
  const revokedAt = await services.storage.keys.revokeKey(projectId, keyId, at, reason, audit);
  // A repeat wakes the polls too: the revoke of a grant's replaced key is in the feed again (see revokeKey).
  if (revokedAt !== null) notifyRevocation(services.waiters, projectId);
  return revokedAt;
}
