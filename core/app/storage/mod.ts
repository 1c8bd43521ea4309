/**
 * The app's storage: the domain interface its routes and services use, its libSQL implementation,
 * its migrations, retention and revocation writes.
 *
 * @module
 */
export * from "./app_migrations.ts";
export * from "./app_storage.ts";
export * from "./libsql_app_storage.ts";
export * from "./libsql_retention.ts";
export * from "./libsql_revocations.ts";
