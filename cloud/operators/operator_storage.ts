/**
 * The dashboard's operators, their sessions and the first-run setup tokens:
 * records and the part of the storage interface that keeps them.
 *
 * @module
 */
import type { AuditEntryInput } from "../audit/mod.ts";

/** What an operator may do: `admin` changes things, `viewer` only reads. */
export type OperatorRole = "admin" | "viewer";

/** The roles, for validation. */
export const OPERATOR_ROLES: readonly OperatorRole[] = ["admin", "viewer"];

/** An operator as stored: secrets only as hashes, except the TOTP secret a code check needs. */
export interface OperatorRecord {
  /** `op_` + ULID. */
  id: string;
  /** Lower-cased email, unique. */
  email: string;
  /** What the operator may do. */
  role: OperatorRole;
  /** The password hash (PHC-style string of a memory-hard function). */
  passwordHash: string;
  /** The base32 TOTP secret once a second factor is on, else `null`. */
  totpSecret: string | null;
  /** Hashes of the unused recovery codes. */
  recoveryCodeHashes: string[];
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  updatedAt: string;
}

/** The fields of an operator that change; omitted ones stay. */
export interface OperatorChanges {
  /** A new role. */
  role?: OperatorRole;
  /** A new password hash. */
  passwordHash?: string;
  /** A new TOTP secret, or `null` to turn the second factor off. */
  totpSecret?: string | null;
  /** New recovery code hashes. */
  recoveryCodeHashes?: string[];
}

/** A signed-in session, found by the hash of its cookie's token. */
export interface SessionRecord {
  /** SHA-256 of the token, hex. */
  tokenHash: string;
  /** The operator signed in. */
  operatorId: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601 of the last request (the idle expiry counts from it). */
  lastSeenAt: string;
  /** ISO 8601 of the absolute expiry. */
  expiresAt: string;
  /** The address the session was opened from, or `null`. */
  sourceAddress: string | null;
}

/** A one-time link that creates the first admin. */
export interface SetupTokenRecord {
  /** SHA-256 of the token, hex. */
  tokenHash: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** Operators, sessions and setup tokens: part of the cloud's storage. */
export interface OperatorStorage {
  /** Stores a new operator; `false` when the email is taken. */
  createOperator(operator: OperatorRecord, audit?: AuditEntryInput): Promise<boolean>;
  /** The operator, or `null`. */
  findOperator(id: string): Promise<OperatorRecord | null>;
  /** The operator with this email (any case), or `null`. */
  findOperatorByEmail(email: string): Promise<OperatorRecord | null>;
  /** Every operator, oldest first. */
  listOperators(): Promise<OperatorRecord[]>;
  /** How many operators exist. */
  countOperators(): Promise<number>;
  /** Changes an operator; `false` when unknown. A new password or role ends the operator's sessions. */
  updateOperator(id: string, changes: OperatorChanges, at: string, audit?: AuditEntryInput): Promise<boolean>;
  /**
   * Records that a TOTP code of time step `step` was accepted, in one conditional write: `false` (nothing
   * changed) when the operator is unknown or a code of this or a later step was accepted before.
   */
  spendTotpStep(id: string, step: number): Promise<boolean>;
  /** Spends one recovery code by its hash; `false` when it is not an unused code of the operator. */
  spendRecoveryCode(id: string, codeHash: string, at: string): Promise<boolean>;
  /** Removes an operator and their sessions; `false` when unknown. */
  removeOperator(id: string, audit?: AuditEntryInput): Promise<boolean>;

  /** Stores a new session, and appends `audit` in the same transaction. */
  createSession(session: SessionRecord, audit?: AuditEntryInput): Promise<void>;
  /** The session with this token hash and its operator, or `null`. */
  findSession(tokenHash: string): Promise<{ session: SessionRecord; operator: OperatorRecord } | null>;
  /** Records a request of the session (for the idle expiry). */
  touchSession(tokenHash: string, at: string): Promise<void>;
  /** Ends a session, and appends `audit` in the same transaction; `false` when there was none. */
  deleteSession(tokenHash: string, audit?: AuditEntryInput): Promise<boolean>;
  /** Deletes sessions past their absolute expiry or idle since before `idleBefore`; the count deleted. */
  purgeSessions(at: string, idleBefore: string): Promise<number>;

  /** Stores a setup token. */
  createSetupToken(token: SetupTokenRecord): Promise<void>;
  /** `true` while the token is unused, unexpired and no operator exists. */
  setupTokenValid(tokenHash: string, at: string): Promise<boolean>;
  /**
   * Spends the token and creates the first operator, atomically: `false` (and nothing stored) when the
   * token is unknown, used or expired, or an operator already exists. `audit` is appended in the same
   * transaction, only when the operator was created.
   */
  setupFirstOperator(
    tokenHash: string,
    operator: OperatorRecord,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<boolean>;
}
