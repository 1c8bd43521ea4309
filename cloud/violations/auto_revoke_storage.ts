/**
 * Auto-revoke: part of the violations' repository.
 *
 * @module
 */
import type { AutoRevokePolicy } from "../../core/contract/mod.ts";
import type { Violation } from "../../core/contract/mod.ts";

/** What an auto-revoke did. */
export interface AutoRevokeOutcome {
  /** When the key was revoked. */
  revokedAt: string;
  /** The counted violations within the window. */
  count: number;
  /** The `AUTO_REVOKED` violation recorded with it. */
  violation: Violation;
}

/** Counting a key's violations and revoking it at the threshold. */
export interface AutoRevoking {
  /**
   * Counts the key's violations the policy counts within its window before `at` and, at the threshold,
   * revokes the key (reason `auto`, with its feed row), records an `AUTO_REVOKED` violation and an audit
   * entry (actor `system`), all in one transaction. `null` when the key stays active (below the threshold,
   * already revoked, or not the project's).
   */
  autoRevoke(projectId: string, keyId: string, policy: AutoRevokePolicy, at: string): Promise<AutoRevokeOutcome | null>;
}
