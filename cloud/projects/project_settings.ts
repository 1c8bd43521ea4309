/**
 * A project's settings: its auto-revoke policy and retention.
 *
 * @module
 */
import type { AutoRevokePolicy, KeyLifetimePolicy } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** A project's policy. */
export interface ProjectPolicy {
  /** The auto-revoke policy, or `null` (off). */
  autoRevoke: AutoRevokePolicy | null;
  /** How long acknowledged inbox items are kept, in milliseconds, or `null` for the server's default. */
  retentionMs: number | null;
  /** The bounds of a key's lifetime, or `null` (none). */
  keyLifetime: KeyLifetimePolicy | null;
}

/** A project's policy, read and set. */
export interface ProjectSettings {
  /** The project's policy (off and the default retention when never set). */
  projectPolicy(projectId: string): Promise<ProjectPolicy>;
  /** Sets (or, with `null`, turns off) the project's auto-revoke policy; `false` when the project is unknown. */
  setAutoRevoke(
    projectId: string,
    policy: AutoRevokePolicy | null,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<boolean>;
  /** Sets (or, with `null`, clears) the project's bounds of a key's lifetime; `false` when the project is unknown. */
  setKeyLifetime(
    projectId: string,
    lifetime: KeyLifetimePolicy | null,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<boolean>;
}
