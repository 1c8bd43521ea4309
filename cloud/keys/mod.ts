/**
 * Agent keys at the cloud: minting, mirroring, verification, revocation from any source and the revocation feed.
 *
 * @module
 */
export * from "./grant_revocation.ts";
export * from "./key_bulk_revocation.ts";
export * from "./key_labels.ts";
export * from "./key_query.ts";
export * from "./key_repository.ts";
export * from "./key_revocation.ts";
export * from "./key_routes.ts";
export * from "./key_service.ts";
export * from "./libsql_bulk_revocations.ts";
export * from "./libsql_key_reads.ts";
export * from "./libsql_keys.ts";
export * from "./libsql_revocations.ts";
export * from "./revocation_routes.ts";
export * from "./revocation_storage.ts";
export { keyMigrationSteps } from "./key_migrations.ts";
