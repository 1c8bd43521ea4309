/**
 * Slows down password guessing: failed sign-ins are counted per address and
 * per account; past a few, each further attempt must wait, twice as long each
 * time, up to a cap. Counted per process, in a bounded map.
 *
 * @module
 */

/** Limits of {@linkcode createSignInLimiter}. */
export interface SignInLimits {
  /** Failures allowed before waits begin (default 5). */
  freeFailures?: number;
  /** The first wait, in milliseconds (default 1 s), doubled with each further failure. */
  baseDelayMs?: number;
  /** The longest wait, in milliseconds (default 15 minutes). */
  maxDelayMs?: number;
  /** Failures older than this are forgotten, in milliseconds (default 1 hour). */
  windowMs?: number;
}

/** Counts failures and says how long a key must wait. */
export interface SignInLimiter {
  /** Milliseconds to wait before another attempt for any of `keys`; 0 when free. */
  waitMs(keys: string[], now: number): number;
  /** Records a failure for each key. */
  fail(keys: string[], now: number): void;
  /** Forgets the failures of the keys (after a success). */
  clear(keys: string[]): void;
}

const MAX_TRACKED = 10_000;

interface Failures {
  count: number;
  last: number;
}

/**
 * Creates a limiter.
 *
 * @param limits Free failures, delays and window.
 * @returns The limiter.
 */
export function createSignInLimiter(limits: SignInLimits = {}): SignInLimiter {
  const free = limits.freeFailures ?? 5;
  const base = limits.baseDelayMs ?? 1000;
  const max = limits.maxDelayMs ?? 15 * 60 * 1000;
  const windowMs = limits.windowMs ?? 60 * 60 * 1000;
  const seen = new Map<string, Failures>();
  const current = (key: string, now: number): Failures | undefined => {
    const f = seen.get(key);
    if (f && now - f.last > windowMs) seen.delete(key);
    return seen.get(key);
  };
  return {
    waitMs(keys, now) {
      let wait = 0;
      for (const key of keys) {
        const f = current(key, now);
        if (!f || f.count < free) continue;
        const delay = Math.min(base * 2 ** Math.min(f.count - free, 30), max);
        wait = Math.max(wait, f.last + delay - now);
      }
      return Math.max(0, Math.ceil(wait));
    },
    fail(keys, now) {
      for (const key of keys) {
        const f = current(key, now) ?? { count: 0, last: now };
        seen.delete(key);
        seen.set(key, { count: f.count + 1, last: now });
      }
      // Forget the oldest entries beyond the bound (a Map iterates in insertion order).
      for (const key of seen.keys()) {
        if (seen.size <= MAX_TRACKED) break;
        seen.delete(key);
      }
    },
    clear(keys) {
      for (const key of keys) seen.delete(key);
    },
  };
}
