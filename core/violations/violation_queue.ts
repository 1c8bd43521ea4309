/**
 * Violations on their way to storage. A refusal is answered at once; its
 * violation waits in a bounded queue and is written with the others that
 * arrived meanwhile, in one transaction. An attacker who floods refusals thus
 * costs one write per batch, not per request, and when the queue is full the
 * excess is counted and dropped rather than held in memory.
 *
 * @module
 */
import type { ErrorLogger } from "../logging/mod.ts";
import type { Violation } from "../contract/mod.ts";

/** The most violations waiting to be written; more are dropped (and counted in the log). */
export const VIOLATION_QUEUE_LIMIT = 10_000;
/** The most violations written in one transaction. */
const BATCH_SIZE = 500;

/** Options of {@linkcode createViolationQueue}. */
export interface ViolationQueueOptions {
  /** Writes a batch, in one transaction. */
  write: (violations: Violation[]) => Promise<void>;
  /** Where failed writes and drops are reported. */
  log: ErrorLogger;
  /** The queue bound. Default {@linkcode VIOLATION_QUEUE_LIMIT}. */
  limit?: number;
}

/** A queue of violations to store. */
export interface ViolationQueue {
  /** Queues a violation; never waits. */
  add(violation: Violation): void;
  /** Resolves once everything queued so far is written (or its write failed). */
  flush(): Promise<void>;
}

/**
 * Creates an empty queue.
 *
 * @param options The writer, the logger and the bound.
 * @returns The queue.
 */
export function createViolationQueue(options: ViolationQueueOptions): ViolationQueue {
  const limit = options.limit ?? VIOLATION_QUEUE_LIMIT;
  let queued: Violation[] = [];
  let dropped = 0;
  let scheduled: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

  function drain(): Promise<void> {
    scheduled = undefined;
    if (dropped > 0) {
      options.log(`${dropped} violations were dropped: the queue was full`, undefined);
      dropped = 0;
    }
    while (queued.length > 0) {
      const batch = queued.length <= BATCH_SIZE ? queued : queued.slice(0, BATCH_SIZE);
      queued = queued.length <= BATCH_SIZE ? [] : queued.slice(BATCH_SIZE);
      writing = writing.then(() => options.write(batch)).catch((e) => options.log("recording violations failed", e));
    }
    return writing;
  }

  return {
    add(violation) {
      if (queued.length >= limit) {
        dropped++;
        return;
      }
      queued.push(violation);
      scheduled ??= setTimeout(drain, 0);
    },
    flush() {
      if (scheduled !== undefined) clearTimeout(scheduled);
      return drain();
    },
  };
}
