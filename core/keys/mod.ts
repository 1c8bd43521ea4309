/**
 * Agent keys for both sides: the key service the routes use, minting and verifying, and a key's row and SQL on
 * a table named by the caller (the app's `app_keys`, the cloud's `cloud_keys` scoped to a project).
 *
 * @module
 */
export * from "./key_lifetime.ts";
export * from "./key_rows.ts";
export * from "./key_service.ts";
export * from "./key_sql.ts";
export * from "./key_verification.ts";
