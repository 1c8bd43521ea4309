/**
 * Violations for both sides: a violation's row and SQL on a table named by the caller, the one auto-revoke
 * counting rule (a coalesced report of N repeats counts N), and the queue that batches reports.
 *
 * @module
 */
export * from "./violation_queue.ts";
export * from "./violation_rows.ts";
export * from "./violation_sql.ts";
