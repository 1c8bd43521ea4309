/**
 * Events and agent inboxes: storing events, delivering and acknowledging items (their long polls wait on
 * `cloud/feed/`).
 *
 * @module
 */
export * from "./event_routes.ts";
export * from "./inbox_query.ts";
export * from "./inbox_repository.ts";
export * from "./inbox_routes.ts";
export * from "./inbox_service.ts";
export * from "./libsql_events.ts";
export * from "./libsql_inbox_reads.ts";
export { inboxMigrationSteps } from "./inbox_migrations.ts";
