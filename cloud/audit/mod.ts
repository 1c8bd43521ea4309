/**
 * The audit log: who changed what, from where, when (its routes, storage and actors).
 *
 * @module
 */
export { AUDIT_ACTIONS, targetsKey } from "./audit_actions.ts";
export { auditRecord, CLI_ACTOR, recordAudit, sdkActor } from "./audit_actor.ts";
export type { AuditActor } from "./audit_actor.ts";
export { auditMigrationSteps } from "./audit_migrations.ts";
export type { AuditRepository } from "./audit_repository.ts";
export { auditRoutes } from "./audit_routes.ts";
export { createAuditService } from "./audit_service.ts";
export type { AuditService } from "./audit_service.ts";
export type { AuditEntry, AuditEntryInput } from "./audit_storage.ts";
export { auditInsert, auditStorage } from "./libsql_audit.ts";
