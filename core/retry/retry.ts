/**
 * One way to retry for everything that waits for the cloud: a run of failures that knows the next delay
 * (exponential backoff with jitter), and a loop that retries a task until it succeeds or a signal stops it.
 *
 * @module
 */
import { backoffDelay, sleep } from "./backoff.ts";

/** The delays of a {@linkcode Backoff}. */
export interface BackoffOptions {
  /** The first delay, in milliseconds. */
  minMs: number;
  /** The longest delay, in milliseconds. */
  maxMs: number;
}

/**
 * A run of failures: each {@linkcode Backoff.next} gives a longer delay (see {@linkcode backoffDelay}), and a
 * success resets it.
 *
 * @example Back off after failures, reset on success
 * ```ts
 * import { Backoff } from "./retry.ts";
 *
 * const backoff = new Backoff({ minMs: 100, maxMs: 1000 });
 * const first = backoff.next(); // 50 to 150 ms
 * backoff.next(); // 100 to 300 ms
 * backoff.reset();
 * console.log(first < 150, backoff.failures); // true 0
 * ```
 */
export class Backoff {
  #failures = 0;
  #min: number;
  #max: number;

  /**
   * Creates a run with no failure yet.
   *
   * @param options The first and the longest delay.
   */
  constructor(options: BackoffOptions) {
    this.#min = options.minMs;
    this.#max = options.maxMs;
  }

  /** Failures since the last reset. */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Counts a failure.
   *
   * @returns The delay before the next try, in milliseconds.
   */
  next(): number {
    return backoffDelay(this.#failures++, this.#min, this.#max);
  }

  /**
   * Counts a failure and waits its delay, or less when `signal` aborts.
   *
   * @param signal Ends the wait early.
   * @returns A promise that resolves when the wait is over.
   */
  wait(signal?: AbortSignal): Promise<void> {
    return sleep(this.next(), signal);
  }

  /** Starts a new run after a success. */
  reset(): void {
    this.#failures = 0;
  }
}

/** Options of {@linkcode retry}. */
export interface RetryOptions extends BackoffOptions {
  /** Stops retrying (also during a wait). */
  signal: AbortSignal;
  /** Told of each failure, with how many came before it. */
  onFailure?: (error: unknown, attempt: number) => void;
}

/**
 * Runs a task until it succeeds or `signal` aborts, waiting a backoff between tries.
 *
 * @example Retry an upload in the background
 * ```ts
 * import { retry } from "./retry.ts";
 *
 * let tries = 0;
 * const result = await retry(() => ++tries < 3 ? Promise.reject(new Error("down")) : Promise.resolve("landed"), {
 *   minMs: 1,
 *   maxMs: 5,
 *   signal: new AbortController().signal,
 * });
 * console.log(result, tries); // landed 3
 * ```
 *
 * @param task What to try.
 * @param options The delays, the signal and the failure hook.
 * @returns What the task returned, or `undefined` when `signal` aborted first.
 */
export async function retry<T>(task: () => Promise<T>, options: RetryOptions): Promise<T | undefined> {
  const backoff = new Backoff(options);
  while (!options.signal.aborted) {
    try {
      return await task();
    } catch (error) {
      options.onFailure?.(error, backoff.failures);
      await backoff.wait(options.signal);
    }
  }
  return undefined;
}
