/**
 * Revoking many of a project's keys at once: the keys an operator selected, or every active key of one user.
 * Each revoked key gets its feed row and its audit entry, revoking every key of a user one more entry for the
 * action, all in one transaction; the feed's long polls in this process wake once.
 *
 * @module
 */
import type { RevocationReason } from "../../core/contract/mod.ts";
import { type AuditActor, auditRecord } from "../audit/mod.ts";
import type { RevocationServices } from "./key_revocation.ts";
import type { BulkRevocationStorage } from "./bulk_revocation_storage.ts";
import { notifyRevocation, revocationAudit } from "./key_revocation.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** The most keys one bulk revoke takes (a page of the dashboard's list is far fewer). */
export const BULK_REVOKE_LIMIT = 500;

/** The audit action of revoking every key of a user (each key also gets its own `key.revoke`). */
export const REVOKE_ALL_ACTION = "key.revoke_all";

/** Who asks for a bulk revoke. */
export type BulkRevokeReason = Extract<RevocationReason, "tooling" | "dashboard">;

/**
 * Revokes the selected keys of a project in one transaction, each with its feed row and audit entry.
 *
 * @param services The storage and wake-ups.
 * @param projectId The project.
 * @param ids The keys (at most {@linkcode BULK_REVOKE_LIMIT}; duplicates count once).
 * @param reason Who asks.
 * @param by Who does it, and from where.
 * @param now The time of the revocation, in milliseconds (default the platform's clock).
 * @returns The ids revoked now; keys already revoked or not the project's are left out.
 * @example Revoke two keys from the dashboard
 * ```ts ignore
 * const revoked = await revokeSelectedKeys(services, projectId, [a, b], "dashboard", operator);
 * ```
 */
export async function revokeSelectedKeys(
  services: { storage: { keys: BulkRevocationStorage } } & Omit<RevocationServices, "storage">,
  projectId: string,
  ids: readonly string[],
  reason: BulkRevokeReason,
  by: AuditActor,
  now: number = PLATFORM.now(),
): Promise<string[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length > BULK_REVOKE_LIMIT) throw new RangeError(`At most ${BULK_REVOKE_LIMIT} keys at once`);
  const at = new Date(now).toISOString();
  const revoked = await services.storage.keys.revokeKeys(
    projectId,
    unique,
    at,
    reason,
    (keyId) => revocationAudit(projectId, keyId, reason, by, now),
  );
  // Also when none was active: a grant's replaced key among them is in the feed again.
  notifyRevocation(services.waiters, projectId);
  return revoked;
}

/**
 * Revokes every active key of a user in one transaction: a feed row and an audit entry per key, and one
 * `key.revoke_all` entry (target the user, detail the reason and the count); its time becomes the user's watermark,
 * which a later mirror of an older key of the user respects.
 *
 * @param services The storage, wake-ups and the keys' clock.
 * @param projectId The project.
 * @param userId The user.
 * @param reason Who asks.
 * @param by Who does it, and from where.
 * @returns The ids revoked now (none when the user has no active key).
 * @example Revoke all of a user's keys from tooling
 * ```ts ignore
 * const revoked = await revokeUserKeys(services, projectId, "alice", "tooling", sdkActor(req));
 * ```
 */
export async function revokeUserKeys(
  services: { storage: { keys: BulkRevocationStorage }; now: () => number } & Omit<RevocationServices, "storage">,
  projectId: string,
  userId: string,
  reason: BulkRevokeReason,
  by: AuditActor,
): Promise<string[]> {
  const now = services.now();
  const at = new Date(now).toISOString();
  const revoked = await services.storage.keys.revokeUserKeys(
    projectId,
    userId,
    at,
    reason,
    (keyId) => revocationAudit(projectId, keyId, reason, by, now),
    (ids) =>
      auditRecord(by, {
        projectId,
        action: REVOKE_ALL_ACTION,
        target: userId,
        detail: { reason, revoked: ids.length },
        at: now,
      }),
  );
  if (revoked.length) notifyRevocation(services.waiters, projectId);
  return revoked;
}
