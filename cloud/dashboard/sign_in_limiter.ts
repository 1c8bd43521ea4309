/**
 * Slows down password guessing: failed sign-ins are counted per address and
 * per account; past a few, each further attempt must wait, twice as long each
 * time, up to a cap. Counted per process, in three bounded maps: addresses,
 * operators' accounts, and emails that are no operator's. Only an operator's
 * email enters the accounts map, so neither many addresses nor many made-up
 * emails can push a real account's count out; made-up emails are still
 * counted (apart), so a wait never tells which emails are operators.
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

/** Whom a sign-in attempt counts against. */
export interface SignInAttempt {
  /** The client's address, or `null` when unknown (all unknown addresses count as one). */
  address: string | null;
  /** The email given, lower case. */
  email: string;
  /** Whether the email is an operator's. */
  operator: boolean;
}

/** Counts failures and says how long an attempt must wait. */
export interface SignInLimiter {
  /** Milliseconds to wait before this attempt (the longer of its address's and its email's); 0 when free. */
  waitMs(attempt: SignInAttempt, now: number): number;
  /** Records a failure for the attempt's address and email. */
  fail(attempt: SignInAttempt, now: number): void;
  /** Forgets the failures of the attempt's account (after a success); its address's stay. */
  succeed(attempt: SignInAttempt): void;
}

/** Entries each map holds at most; the oldest go first. */
export const MAX_TRACKED = 10_000;

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
  const addresses = new Map<string, Failures>();
  const accounts = new Map<string, Failures>();
  const madeUp = new Map<string, Failures>();
  const countsOf = (a: SignInAttempt): [Map<string, Failures>, string][] => [
    [addresses, a.address ?? "unknown"],
    [a.operator ? accounts : madeUp, a.email],
  ];
  const current = (seen: Map<string, Failures>, key: string, now: number): Failures | undefined => {
    const f = seen.get(key);
    if (f && now - f.last > windowMs) seen.delete(key);
    return seen.get(key);
  };
  return {
    waitMs(attempt, now) {
      let wait = 0;
      for (const [seen, key] of countsOf(attempt)) {
        const f = current(seen, key, now);
        if (!f || f.count < free) continue;
        const delay = Math.min(base * 2 ** Math.min(f.count - free, 30), max);
        wait = Math.max(wait, f.last + delay - now);
      }
      return Math.max(0, Math.ceil(wait));
    },
    fail(attempt, now) {
      for (const [seen, key] of countsOf(attempt)) {
        const f = current(seen, key, now) ?? { count: 0, last: now };
        seen.delete(key);
        seen.set(key, { count: f.count + 1, last: now });
        // Forget the oldest entries beyond the bound (a Map iterates in insertion order).
        for (const oldest of seen.keys()) {
          if (seen.size <= MAX_TRACKED) break;
          seen.delete(oldest);
        }
      }
    },
    succeed(attempt) {
      const [, [seen, key]] = countsOf(attempt);
      seen.delete(key);
    },
  };
}
