/**
 * Violations: reports, listing, the auto-revoke policy and applying it, repeated refusals.
 *
 * @module
 */
export * from "./auto_revoke.ts";
export * from "./auto_revoke_storage.ts";
export * from "./libsql_auto_revoke.ts";
export * from "./libsql_violation_chart.ts";
export * from "./libsql_violations.ts";
export * from "./policy_routes.ts";
export * from "./policy_in_words.ts";
export * from "./project_policy.ts";
export * from "./refusals.ts";
export * from "./violation_chart.ts";
export * from "./violation_query.ts";
export * from "./violation_repository.ts";
export * from "./violation_routes.ts";
export * from "./violation_service.ts";
export { violationMigrationSteps } from "./violation_migrations.ts";
