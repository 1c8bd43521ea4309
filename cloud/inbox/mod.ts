/**
 * Events and agent inboxes: storing events, delivering and acknowledging items, waiters and long polls.
 *
 * @module
 */
export * from "./event_routes.ts";
export * from "./inbox_query.ts";
export * from "./inbox_repository.ts";
export * from "./inbox_routes.ts";
export * from "./inbox_service.ts";
export * from "./inbox_waiters.ts";
export * from "./libsql_events.ts";
export * from "./libsql_inbox_reads.ts";
export * from "./long_poll.ts";
