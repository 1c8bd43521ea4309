/**
 * The audit service: appending an entry on its own (sign-ins, operator
 * changes) and reading the log. Writes that change data append their entry in
 * their own transaction through `auditInsert`.
 *
 * @module
 */
import type { AuditPage, AuditQuery } from "./audit_storage.ts";
import type { AuditRepository } from "./audit_repository.ts";
import { type AuditAction, type AuditActor, recordAudit } from "./audit_actor.ts";

/** What the `/v1` routes, the dashboard and the command line do with the audit log. */
export interface AuditService {
  /** Appends an entry. */
  record(by: AuditActor, entry: AuditAction): Promise<void>;
  /** A page of the log, newest first. */
  list(query: AuditQuery): Promise<AuditPage>;
}

/**
 * Creates the audit service.
 *
 * @param storage The features' repositories.
 * @returns The service.
 */
export function createAuditService(storage: { audit: AuditRepository }): AuditService {
  return {
    record: (by, entry) => recordAudit(storage, by, entry),
    list: (query) => storage.audit.listAudit(query),
  };
}
