/**
 * Many keys revoked in one transaction: part of the keys' repository.
 *
 * @module
 */
import type { RevocationReason } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** The repository's part: many keys revoked in one transaction. */
export interface BulkRevocationStorage {
  /**
   * Revokes those of the project's keys with these ids that are active, appending each one's feed row and
   * `audit(id)`, in one transaction.
   *
   * @returns The ids revoked now, sorted (already revoked and unknown ids are left out).
   */
  revokeKeys(
    projectId: string,
    ids: readonly string[],
    at: string,
    reason: RevocationReason,
    audit: (keyId: string) => AuditEntryInput,
  ): Promise<string[]>;
  /**
   * Revokes every active key of a user of the project, appending each one's feed row and `audit(id)`, then
   * `action(ids)` for the whole, in one transaction, and keeps `at` as the user's watermark: a mirror that arrives
   * later for a key of the user created at or before it is stored revoked (see `mirrorKey`).
   *
   * @returns The ids revoked now, sorted.
   */
  revokeUserKeys(
    projectId: string,
    userId: string,
    at: string,
    reason: RevocationReason,
    audit: (keyId: string) => AuditEntryInput,
    action: (ids: readonly string[]) => AuditEntryInput,
  ): Promise<string[]>;
}
