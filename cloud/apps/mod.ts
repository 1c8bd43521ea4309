/**
 * Connected apps: the app instances that follow a project's revocation feed, as they identify
 * themselves on their polls, and the key uses a hybrid app mirrors.
 *
 * @module
 */
export * from "./app_identity.ts";
export * from "./app_repository.ts";
export * from "./app_routes.ts";
export * from "./app_service.ts";
export { appMigrationSteps } from "./app_migrations.ts";
