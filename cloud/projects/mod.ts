/**
 * Projects: creation, secrets and their rotation, the manifest, administration, deletion and project reads.
 *
 * @module
 */
export { projectAdministration } from "./libsql_project_admin.ts";
export { PROJECT_RETENTIONS, PROJECTS_WITH_RETENTION, projectSettings } from "./libsql_project_settings.ts";
export { projectStorage } from "./libsql_projects.ts";
export { manifestRoutes } from "./manifest_routes.ts";
export { projectMigrationSteps } from "./project_migrations.ts";
export type { ProjectRecord, ProjectRepository } from "./project_repository.ts";
export { createProjectService } from "./project_service.ts";
export type { ProjectService } from "./project_service.ts";
