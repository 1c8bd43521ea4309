/**
 * libSQL for both sides: one executor over two engines, opening a database, numbered migrations and row helpers.
 *
 * @module
 */
export { afterIo } from "./after_io.ts";
export type { Scheduler } from "./after_io.ts";
export { createChangeCache, REMOTE_STALENESS_MS } from "./change_cache.ts";
export type { ChangeCache } from "./change_cache.ts";
export { DELETE_CHUNK, deleteInChunks } from "./chunked_delete.ts";
export { migrate, openDatabase, schemaVersion } from "./database.ts";
export type { DatabaseInput, LibsqlClient, Migration, OpenDatabaseOptions } from "./database.ts";
export type { Executor, ResultSet, SqlRow, SqlValue, Statement, Transaction, TransactionMode } from "./executor.ts";
export { createGroupCommit } from "./group_commit.ts";
export type { GroupCommit } from "./group_commit.ts";
export { MAX_PURGE_INTERVAL_MS, schedulePurge } from "./purge_schedule.ts";
export type { PurgeSchedule } from "./purge_schedule.ts";
export { integer, listFilter, parsed, placeholders, text, textOrNull } from "./rows.ts";
export {
  databaseName,
  STORAGE_FAILURE_LOG_MS,
  storageError,
  storageFailure,
  storageFailureLogger,
} from "./storage_failure.ts";
export { timedExecutor } from "./timed_executor.ts";
export type { DatabaseOperation } from "./timed_executor.ts";
