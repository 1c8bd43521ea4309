/**
 * Agent keys for both sides: the key service the routes use, minting and verifying, and a key's row and SQL on
 * a table named by the caller (the app's `app_keys`, the cloud's `cloud_keys` scoped to a project).
 *
 * @module
 */
export { heldExpiry, joinLifetimes, keyExpiry, successorExpiry } from "./key_lifetime.ts";
export type { KeyLifetime } from "./key_lifetime.ts";
export { KEY_COLUMNS, keyValues, toKey } from "./key_rows.ts";
export type { KeyRequest, KeyService, MintResult, RerollRequest, VerifiedKey } from "./key_service.ts";
export {
  insertKey,
  revokeKeyOfUser,
  scheduleKeyRevocation,
  selectKeyByHash,
  selectKeyById,
  selectKeysOfUser,
  touchKey,
} from "./key_sql.ts";
export type { Condition, KeyTable } from "./key_sql.ts";
export { findKeyBySecret, mintKey } from "./key_verification.ts";
