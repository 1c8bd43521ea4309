/**
 * Violations: reports, listing, the auto-revoke policy and applying it, repeated refusals.
 *
 * @module
 */
export { autoRevoking } from "./libsql_auto_revoke.ts";
export { violationChart } from "./libsql_violation_chart.ts";
export { VIOLATION_TABLES, violationStorage } from "./libsql_violations.ts";
export { autoRevokeInWords, keyLifetimeInWords, quantity } from "./policy_in_words.ts";
export { policyRoutes } from "./policy_routes.ts";
export { MAX_RETENTION_DAYS, policyChangeSchema, readPolicy, updatePolicy } from "./project_policy.ts";
export type { PolicyChange, PolicyView } from "./project_policy.ts";
export { createCloudRefusals } from "./refusals.ts";
export type { CloudRefusals } from "./refusals.ts";
export type { BucketUnit, ViolationBucket } from "./violation_chart.ts";
export { violationMigrationSteps } from "./violation_migrations.ts";
export { violationsQuery } from "./violation_query.ts";
export type { ViolationRepository } from "./violation_repository.ts";
export { violationRoutes } from "./violation_routes.ts";
export { createViolationService } from "./violation_service.ts";
export type { ViolationService } from "./violation_service.ts";
