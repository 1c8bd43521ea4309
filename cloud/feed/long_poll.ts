/**
 * The loop of a long poll, shared by the inbox and the revocation feed:
 * subscribe to the wake-ups, read, and while nothing is found wait for a
 * wake-up (or a slice of the time left), then read again.
 *
 * @module
 */
import type { InboxSubscription } from "./waiters.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** When a long poll stops waiting. */
export interface PollLimits {
  /** When the poll's `wait` ends, in milliseconds since the epoch of {@linkcode PollLimits.now}. */
  deadline: number;
  /** The clock of the deadline (default the platform's). */
  now?: () => number;
  /** The client went away. */
  signal: AbortSignal;
  /** The cloud is closing. */
  closing(): boolean;
  /**
   * The longest single wait, for reads that no watcher wakes for other processes (default: all the time left); a
   * function is asked after each empty read (an inbox's next lease end, say).
   */
  sliceMs?: number | (() => Promise<number>);
}

/**
 * Reads until something is found or the poll's time is up.
 *
 * @param subscribe Starts listening for wake-ups (called before each read, so a write in between still wakes).
 * @param read Reads what is waiting.
 * @param limits The deadline, the client's signal and the cloud's closing.
 * @returns What was read last, and whether the poll waited before reading it.
 */
export async function readOrWait<T>(
  subscribe: () => InboxSubscription,
  read: () => Promise<T[]>,
  limits: PollLimits,
): Promise<{ rows: T[]; waited: boolean }> {
  let waited = false;
  for (;;) {
    const subscription = subscribe();
    try {
      const rows = await read();
      const left = limits.deadline - (limits.now ?? PLATFORM.now)();
      if (rows.length > 0 || left <= 0 || limits.signal.aborted || limits.closing()) return { rows, waited };
      const slice = typeof limits.sliceMs === "function" ? await limits.sliceMs() : limits.sliceMs ?? left;
      await subscription.wait(Math.max(0, Math.min(left, slice)), limits.signal);
      waited = true;
    } finally {
      subscription.cancel();
    }
  }
}
