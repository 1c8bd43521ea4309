/**
 * Connected apps: the app instances that follow a project's revocation feed, as they identify
 * themselves on their polls, and the key uses a hybrid app mirrors.
 *
 * @module
 */
export { appMigrationSteps } from "./app_migrations.ts";
export { APP_TABLES, appStorage } from "./app_repository.ts";
export type { AppRepository } from "./app_repository.ts";
export { appRoutes } from "./app_routes.ts";
export { APP_RETENTION_MS, APP_STALE_AFTER_MS, createAppService } from "./app_service.ts";
export type { AppService, AppServiceOptions, ConnectedApp } from "./app_service.ts";
