/**
 * The audit log: who changed what, from where, when. Append-only, and an
 * entry never holds a secret.
 *
 * @module
 */

/** An audit entry as appended. */
export interface AuditEntryInput {
  /** The project concerned, or `null` for the cloud as a whole (operators, sign-in). */
  projectId: string | null;
  /** `cli`, `sdk`, `system`, or an operator's email. */
  actor: string;
  /** What happened, dotted lower case (`project.create`, `key.revoke`, `operator.sign_in_failed`…). */
  action: string;
  /** What it happened to (a key id, a project id, an email), or `null`. */
  target: string | null;
  /** A small JSON object without secrets (`{ reason: "dashboard" }`). */
  detail: Record<string, unknown>;
  /** The client's address, or `null` when unknown (the command line). */
  sourceAddress: string | null;
  /** When it happened (ISO 8601): for an app's action, the app's time. */
  createdAt: string;
  /** When the cloud received it (ISO 8601), when later than `createdAt`; default `createdAt`. */
  receivedAt?: string;
}

/** An audit entry as stored. */
export interface AuditEntry extends AuditEntryInput {
  /** Increasing with each append. */
  id: number;
  /** When the cloud received it (ISO 8601): `createdAt`, or later for what an app's outbox delivered late. */
  receivedAt: string;
}

/** Filters and page of an audit query; `since` is inclusive. */
export interface AuditQuery {
  /** Only this project's. */
  projectId?: string;
  /** Only this action. */
  action?: string;
  /** Only entries about this key (its id as the entry's target). */
  keyId?: string;
  /** Only at or after this ISO 8601 time. */
  since?: string;
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** A page of the audit log and the count of all matches. */
export interface AuditPage {
  /** Newest first, ties by id. */
  entries: AuditEntry[];
  /** Count of every match. */
  total: number;
}

/** The audit log: part of the cloud's storage. */
export interface AuditStorage {
  /** Appends an entry; its id. */
  appendAudit(entry: AuditEntryInput): Promise<number>;
  /** A page of the log, newest first. */
  listAudit(query: AuditQuery): Promise<AuditPage>;
}
