/**
 * The audit log: what the feature's repository offers, with no SQL; all the SQL of its table is behind it, on
 * libSQL in this folder.
 *
 * @module
 */
import type { AuditStorage } from "./audit_storage.ts";

/** The audit log: the repository. */
export type AuditRepository = AuditStorage;
