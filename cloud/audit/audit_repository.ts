/**
 * The audit log: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** The audit log: the repository. */
export type AuditRepository = Pick<CloudStorageMethods, "appendAudit" | "listAudit">;
