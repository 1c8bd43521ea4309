/**
 * Projects: creation, secrets and their rotation, the manifest, administration, deletion and project reads.
 *
 * @module
 */
export * from "./libsql_project_admin.ts";
export * from "./libsql_project_settings.ts";
export * from "./libsql_projects.ts";
export * from "./manifest_routes.ts";
export * from "./project_admin_storage.ts";
export * from "./project_repository.ts";
export * from "./project_service.ts";
export * from "./project_settings.ts";
export * from "./projects.ts";
export { projectMigrationSteps } from "./project_migrations.ts";
