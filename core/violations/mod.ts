/**
 * Violations for both sides: the queue that batches them.
 *
 * @module
 */
export * from "./violation_queue.ts";
