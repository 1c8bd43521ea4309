/**
 * The cloud's database: its one ordered list of migrations (the features' repositories are opened over it by
 * `openCloudStorage`).
 *
 * @module
 */
export {
  CLOUD_FEATURE_MIGRATIONS,
  CLOUD_MIGRATION_ORDER,
  CLOUD_MIGRATIONS_TABLE,
  cloudMigrations,
} from "./cloud_migrations.ts";
