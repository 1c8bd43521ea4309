/**
 * The cloud's database: its one ordered list of migrations and where it is opened.
 *
 * @module
 */
export * from "./cloud_migrations.ts";
export * from "./cloud_storage.ts";
