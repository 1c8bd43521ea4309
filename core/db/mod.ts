/**
 * libSQL for both sides: one executor over two engines, opening a database, numbered migrations and row helpers.
 *
 * @module
 */
export * from "./chunked_delete.ts";
export * from "./database.ts";
export * from "./executor.ts";
export * from "./rows.ts";
export * from "./change_cache.ts";
export * from "./group_commit.ts";
export * from "./purge_schedule.ts";
export * from "./timed_executor.ts";
export * from "./storage_failure.ts";
