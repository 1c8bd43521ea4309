/**
 * Events and agent inboxes: storing events, delivering and acknowledging items (their long polls wait on
 * `cloud/feed/`).
 *
 * @module
 */
export { deadLetterRoutes } from "./dead_letter_routes.ts";
export { eventRoutes } from "./event_routes.ts";
export { inboxMigrationSteps } from "./inbox_migrations.ts";
export type { InboxItemStatus, InboxReads } from "./inbox_query.ts";
export type { InboxRepository } from "./inbox_repository.ts";
export { inboxRoutes } from "./inbox_routes.ts";
export { createInboxService } from "./inbox_service.ts";
export type { InboxService } from "./inbox_service.ts";
export { eventStorage, INBOX_TABLES } from "./libsql_events.ts";
export { inboxReads } from "./libsql_inbox_reads.ts";
export { leaseStorage } from "./libsql_leases.ts";
