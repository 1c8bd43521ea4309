/**
 * Agent keys, their claims and the revocation feed: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** Agent keys, their claims and the revocation feed: the repository. */
export type KeyRepository = Pick<
  CloudStorageMethods,
  | "insertKey"
  | "mirrorKey"
  | "listKeys"
  | "revokeKey"
  | "findKeyByHash"
  | "findKeyAuth"
  | "touchKey"
  | "listRevocations"
  | "latestRevocationSeq"
  | "listProjectKeys"
  | "findProjectKey"
  | "countKeys"
>;
