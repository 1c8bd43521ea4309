/**
 * Approvals as hybrid and cloud-mode apps report them: each step stored and audited once, listed for tooling and
 * on the dashboard (read-only: the key's user decides in the app).
 *
 * @module
 */
export { approvalMigrationSteps } from "./approval_migrations.ts";
export type { ApprovalRepository, ListedApproval } from "./approval_repository.ts";
export { approvalRoutes } from "./approval_routes.ts";
export { createApprovalService } from "./approval_service.ts";
export type { ApprovalService } from "./approval_service.ts";
export { APPROVAL_TABLES, approvalStorage } from "./libsql_approvals.ts";
