/**
 * The audit log: who changed what, from where, when (its routes, storage and actors).
 *
 * @module
 */
export * from "./audit_actions.ts";
export * from "./audit_actor.ts";
export * from "./audit_repository.ts";
export * from "./audit_routes.ts";
export * from "./audit_service.ts";
export * from "./audit_storage.ts";
export * from "./libsql_audit.ts";
export { auditMigrationSteps } from "./audit_migrations.ts";
