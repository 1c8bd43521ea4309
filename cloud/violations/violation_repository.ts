/**
 * Violations, their chart and the auto-revoke policy: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** Violations, their chart and the auto-revoke policy: the repository. */
export type ViolationRepository = Pick<
  CloudStorageMethods,
  | "addViolation"
  | "addViolations"
  | "purgeViolations"
  | "listViolations"
  | "violationBuckets"
  | "autoRevoke"
>;
