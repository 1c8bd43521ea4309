/**
 * The revocation feed and a project's policy: part of the cloud's storage.
 *
 * @module
 */
import type { AutoRevokePolicy } from "../../core/contract/mod.ts";
import type { Revocation } from "../../core/contract/mod.ts";
import type { Violation } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** What an auto-revoke did. */
export interface AutoRevokeOutcome {
  /** When the key was revoked. */
  revokedAt: string;
  /** The counted violations within the window. */
  count: number;
  /** The `AUTO_REVOKED` violation recorded with it. */
  violation: Violation;
}

/** A project's policy. */
export interface ProjectPolicy {
  /** The auto-revoke policy, or `null` (off). */
  autoRevoke: AutoRevokePolicy | null;
  /** How long acknowledged inbox items are kept, in milliseconds, or `null` for the server's default. */
  retentionMs: number | null;
}

/** The revocation feed and the auto-revoke policy. */
export interface RevocationStorage {
  /** The project's revocations with `seq > after`, ascending, at most `limit`. */
  listRevocations(projectId: string, after: number, limit: number): Promise<Revocation[]>;
  /** The highest feed `seq` of every project (0 when none): one read that tells the long polls' watcher of any new revocation. */
  latestRevocationSeq(): Promise<number>;
  /** The project's policy (off and the default retention when never set). */
  projectPolicy(projectId: string): Promise<ProjectPolicy>;
  /** Sets (or, with `null`, turns off) the project's auto-revoke policy; `false` when the project is unknown. */
  setAutoRevoke(
    projectId: string,
    policy: AutoRevokePolicy | null,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<boolean>;
  /**
   * Counts the key's violations the policy counts within its window before `at` and, at the threshold,
   * revokes the key (reason `auto`, with its feed row), records an `AUTO_REVOKED` violation and an audit
   * entry (actor `system`), all in one transaction. `null` when the key stays active (below the threshold,
   * already revoked, or not the project's).
   */
  autoRevoke(projectId: string, keyId: string, policy: AutoRevokePolicy, at: string): Promise<AutoRevokeOutcome | null>;
}
