/**
 * Violations for both sides: a violation's row and SQL on a table named by the caller, the one auto-revoke
 * counting rule (a coalesced report of N repeats counts N), and the queue that batches reports.
 *
 * @module
 */
export { createViolationQueue } from "./violation_queue.ts";
export { toViolation, VIOLATION_COLUMNS } from "./violation_rows.ts";
export {
  countTowardAutoRevoke,
  insertViolation,
  insertViolations,
  selectLatestViolations,
  violationWeight,
} from "./violation_sql.ts";
export type { ViolationTable } from "./violation_sql.ts";
