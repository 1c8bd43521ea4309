/**
 * The cloud's database: its one ordered list of migrations (the features' repositories are opened over it by
 * `openCloudStorage`).
 *
 * @module
 */
export * from "./cloud_migrations.ts";
