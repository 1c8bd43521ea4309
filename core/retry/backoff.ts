/**
 * Retry timing shared by everything that waits for the cloud: exponential
 * backoff with jitter, and a sleep that an AbortSignal ends early.
 *
 * @module
 */

import { PLATFORM } from "../platform/mod.ts";

/**
 * The delay before retry number `attempt` (0-based): `min × 2^attempt`, capped
 * at `max`, then scaled by a random factor in [0.5, 1.5) so that many clients
 * do not retry in step.
 *
 * @param attempt How many retries came before.
 * @param min The first delay, in milliseconds.
 * @param max The cap, in milliseconds.
 * @param random A number in [0, 1) (default the platform's).
 * @returns Milliseconds to wait.
 */
export function backoffDelay(
  attempt: number,
  min: number,
  max: number,
  random: () => number = PLATFORM.random,
): number {
  return Math.min(min * 2 ** Math.min(attempt, 30), max) * (0.5 + random());
}

/** How a retry loop waits: {@linkcode sleep}, or a test's scheduler that records each delay. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/**
 * Waits `ms` milliseconds, or less if `signal` aborts (it then resolves, not rejects).
 *
 * @param ms How long to wait.
 * @param signal Ends the wait early.
 * @returns A promise that resolves when the time is up or the signal aborts.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
