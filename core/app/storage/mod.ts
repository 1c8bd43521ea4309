/**
 * The app's storage: the domain interface its routes and services use, its libSQL implementation,
 * its migrations, retention and revocation writes.
 *
 * @module
 */
export { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "./app_migrations.ts";
export type { AppStorage, OutboxItem } from "./app_storage.ts";
export { openAppStorage } from "./libsql_app_storage.ts";
