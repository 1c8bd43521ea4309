/**
 * A process-wide cap on password hashes: each scrypt holds 32 MiB while it
 * runs, so only {@linkcode MAX_RUNNING_HASHES} run at once and at most
 * {@linkcode MAX_WAITING_HASHES} more wait their turn (holding no such
 * memory); beyond that a hash is refused at once with `429 RATE_LIMITED` and
 * `Retry-After`, so no flood of sign-ins or setup posts can take the memory
 * that `/v1` needs.
 *
 * @module
 */
import { rateLimited } from "../../core/abuse/mod.ts";

/** Password hashes that run at once in this process. */
export const MAX_RUNNING_HASHES = 2;
/** Password hashes that may wait for a turn; past this, refused. */
export const MAX_WAITING_HASHES = 16;

/** Runs password hashes a few at a time. */
export interface HashGate {
  /**
   * Runs a hash when a place is free, waiting for one if few are waiting.
   *
   * @param hash The work.
   * @returns Its result.
   * @throws {SvcError} `RATE_LIMITED` (with `Retry-After`) when too many hashes are already waiting.
   */
  run<T>(hash: () => Promise<T>): Promise<T>;
  /** Hashes running now (for tests and metrics). */
  readonly running: number;
  /** Hashes waiting now. */
  readonly waiting: number;
}

/**
 * Creates a gate.
 *
 * @param maxRunning Hashes run at once.
 * @param maxWaiting Hashes that may wait.
 * @returns The gate.
 *
 * @example Two at a time
 * ```ts
 * import { createHashGate } from "./hash_gate.ts";
 * const gate = createHashGate(2, 8);
 * await gate.run(() => Promise.resolve("hashed"));
 * ```
 */
export function createHashGate(maxRunning: number, maxWaiting: number): HashGate {
  let running = 0;
  const queue: (() => void)[] = [];
  return {
    async run(hash) {
      if (running >= maxRunning) {
        if (queue.length >= maxWaiting) throw rateLimited(1000);
        await new Promise<void>((resolve) => queue.push(resolve));
      } else {
        running += 1;
      }
      try {
        return await hash();
      } finally {
        // Hand the place to the next in line, or free it.
        const next = queue.shift();
        if (next) next();
        else running -= 1;
      }
    },
    get running() {
      return running;
    },
    get waiting() {
      return queue.length;
    },
  };
}

/** The gate every operator password hash of this process goes through. */
export const PASSWORD_HASHES: HashGate = createHashGate(MAX_RUNNING_HASHES, MAX_WAITING_HASHES);
