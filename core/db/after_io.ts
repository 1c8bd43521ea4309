/**
 * Running a task once the current event-loop turn's I/O callbacks are done, with
 * no timer: `setImmediate`, a global on Deno, Bun and Node alike (a timer of 0 ms
 * is clamped to about 1 ms); a resolved promise elsewhere.
 *
 * @module
 */

/** Runs a task later, once; what {@linkcode afterIo} is and what a test injects. */
export type Scheduler = (task: () => void) => void;

const immediate = (globalThis as { setImmediate?: (task: () => void) => unknown }).setImmediate;

/**
 * Runs `task` after the I/O callbacks of the current turn (the check phase), before any timer.
 *
 * @example Write what the turn queued once its callbacks have run
 * ```ts
 * import { afterIo } from "./after_io.ts";
 *
 * afterIo(() => console.log("after this turn's I/O"));
 * ```
 *
 * @param task What to run.
 */
export const afterIo: Scheduler = immediate === undefined
  ? (task) => void Promise.resolve().then(task)
  : (task) => void immediate(task);
