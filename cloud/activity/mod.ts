/**
 * Activity: what agents did, as apps ship it (one record per agent run), listed, exported and purged.
 *
 * @module
 */
export { activityMigrationSteps } from "./activity_migrations.ts";
export { activityRoutes } from "./activity_routes.ts";
export { activityQuery } from "./activity_query.ts";
export type { ActivityQuery } from "./activity_query.ts";
export { CHART_HOURS, createActivityService, DEFAULT_ACTIVITY_RETENTION_MS } from "./activity_service.ts";
export type { ActivityService } from "./activity_service.ts";
export { ACTIVITY_TABLES, activityStorage } from "./libsql_activity.ts";
export type { ActivityHour, ActivityRepository } from "./libsql_activity.ts";
