/**
 * What an admin does to other operators from the dashboard: invites (a one-time link that lets its holder choose a
 * password and join with the role given), role changes and removals that never leave the cloud without an admin.
 *
 * @module
 */
import type { AuditEntryInput } from "../audit/mod.ts";
import type { OperatorRecord, OperatorRole } from "./operator_storage.ts";

/** How long an invite link works: 24 hours. */
export const INVITE_LINK_TTL_MS = 24 * 60 * 60 * 1000;

/** An invite as stored: the link's token only as its hash. */
export interface InviteRecord {
  /** SHA-256 of the token, hex. */
  tokenHash: string;
  /** The email the invitee joins with (lower-cased). */
  email: string;
  /** The role the invitee gets. */
  role: OperatorRole;
  /** The email of the admin who invited. */
  invitedBy: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** What a role change or a removal did: `last_admin` when it would have left no admin, so nothing changed. */
export type OperatorChangeOutcome = "done" | "unknown" | "last_admin";

/** Invites, role changes and removals: part of the operators' storage. */
export interface OperatorAdministrationStorage {
  /** Stores an invite (its audit entry in the same transaction); `false` when an operator has its email. */
  createInvite(invite: InviteRecord, audit: AuditEntryInput): Promise<boolean>;
  /** The unused, unexpired invite with this token hash whose email no operator has yet, or `null`. */
  findInvite(tokenHash: string, at: string): Promise<InviteRecord | null>;
  /**
   * Spends the invite and creates its operator, atomically: `false` (and nothing stored) when the invite is unknown,
   * used or expired, or its email is taken. `audit` is appended in the same transaction when the operator was created.
   */
  acceptInvite(tokenHash: string, operator: OperatorRecord, at: string, audit: AuditEntryInput): Promise<boolean>;
  /** Sets an operator's role and ends their sessions, unless it would leave no admin; audited in the same transaction. */
  changeRole(id: string, role: OperatorRole, at: string, audit: AuditEntryInput): Promise<OperatorChangeOutcome>;
  /** Removes an operator and their sessions, unless they are the last admin; audited in the same transaction. */
  removeUnlessLastAdmin(id: string, audit: AuditEntryInput): Promise<OperatorChangeOutcome>;
}
