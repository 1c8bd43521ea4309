/**
 * Agent keys at the cloud: minting, mirroring, verification, revocation from any source and the revocation feed.
 *
 * @module
 */
export { endGrantsOfKeys } from "./grant_revocation.ts";
export { BULK_REVOKE_LIMIT, REVOKE_ALL_ACTION } from "./key_bulk_revocation.ts";
export { keyLabelId, keyLabelReads } from "./key_labels.ts";
export type { KeyLabel } from "./key_labels.ts";
export { keyMigrationSteps } from "./key_migrations.ts";
export { prefixRange } from "./key_query.ts";
export type { KeyStatus } from "./key_query.ts";
export type { KeyRepository, KeyUse } from "./key_repository.ts";
export { notifyRevocation, revocationAudit } from "./key_revocation.ts";
export { keyRoutes } from "./key_routes.ts";
export { createKeyService } from "./key_service.ts";
export type { KeyService } from "./key_service.ts";
export { keyReads, keySearchStatements } from "./libsql_key_reads.ts";
export { KEY_TABLES, keyStorage } from "./libsql_keys.ts";
export { activeKeyUser, keyRevoke, revocationStorage } from "./libsql_revocations.ts";
export { revocationRoutes } from "./revocation_routes.ts";
export type { RevocationStorage } from "./revocation_storage.ts";
