/**
 * Slows down password guessing: failed sign-ins are counted per address (an
 * IPv6 address per /64) and per email; past a few, each further attempt must
 * wait, twice as long each time, up to a cap. Counted per process: addresses
 * in a bounded map, and every email, an operator's or made up alike, in a
 * fixed table of {@linkcode MADE_UP_SLOTS} counters indexed by a keyed hash of
 * the email. Neither many addresses nor many made-up emails can push a real
 * account's count out (nothing in the table is evicted; two emails sharing a
 * slot only add up), and since operators' emails are counted exactly as others
 * are, a wait never tells which emails are operators. An attempt is counted
 * before its password is checked and released when it succeeds, so concurrent
 * attempts cannot all slip under the limit.
 *
 * @module
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { addressKey } from "../../core/abuse/mod.ts";
import { BoundedMap } from "../../core/cache/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

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
  /**
   * Takes back one failure of the attempt's address: an attempt is counted with {@linkcode SignInLimiter.fail}
   * before its password is checked (so concurrent attempts cannot all pass), and released when it succeeds.
   */
  release(attempt: SignInAttempt, now: number): void;
}

/** Addresses tracked at most; the least recently failed go first. */
export const MAX_TRACKED = 10_000;

/**
 * Counters for every email, an operator's or made up: a fixed table indexed by a keyed hash, so its memory never
 * grows, nothing is evicted, and an operator's email is counted exactly as a made-up one (no volume of failures
 * tells them apart).
 */
export const MADE_UP_SLOTS = 65_536;

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
  const addresses = new BoundedMap<string, Failures>({ maxEntries: MAX_TRACKED });
  const madeUp = { count: new Uint32Array(MADE_UP_SLOTS), last: new Float64Array(MADE_UP_SLOTS) };
  // A per-process random key, so which emails share a slot cannot be worked out from outside.
  const slotKey = PLATFORM.randomBytes(32);
  const slotOf = (email: string): number => {
    const digest = hmac(sha256, slotKey, new TextEncoder().encode(email.trim().toLowerCase()));
    return ((digest[0] << 8) | digest[1]) % MADE_UP_SLOTS;
  };
  const addressOf = (a: SignInAttempt): string => a.address === null ? "unknown" : addressKey(a.address);
  /** The failures counted against the attempt's address and email, forgetting those older than the window. */
  const countsOf = (a: SignInAttempt, now: number): Failures[] => {
    const counts = [current(addresses, addressOf(a), now)];
    const slot = slotOf(a.email);
    if (now - madeUp.last[slot] > windowMs) madeUp.count[slot] = 0;
    return [...counts, { count: madeUp.count[slot], last: madeUp.last[slot] }];
  };
  const current = (seen: BoundedMap<string, Failures>, key: string, now: number): Failures => {
    const f = seen.peek(key);
    if (f && now - f.last > windowMs) seen.delete(key);
    return seen.peek(key) ?? { count: 0, last: now };
  };
  const bump = (seen: BoundedMap<string, Failures>, key: string, now: number): void => {
    const f = current(seen, key, now);
    seen.set(key, { count: f.count + 1, last: now });
  };
  return {
    waitMs(attempt, now) {
      let wait = 0;
      for (const f of countsOf(attempt, now)) {
        if (f.count < free) continue;
        const delay = Math.min(base * 2 ** Math.min(f.count - free, 30), max);
        wait = Math.max(wait, f.last + delay - now);
      }
      return Math.max(0, Math.ceil(wait));
    },
    fail(attempt, now) {
      bump(addresses, addressOf(attempt), now);
      const slot = slotOf(attempt.email);
      if (now - madeUp.last[slot] > windowMs) madeUp.count[slot] = 0;
      madeUp.count[slot] += 1;
      madeUp.last[slot] = now;
    },
    succeed(attempt) {
      // Only an operator can succeed: its slot starts again (emails sharing it lose their count, unknowingly).
      if (attempt.operator) madeUp.count[slotOf(attempt.email)] = 0;
    },
    release(attempt, now) {
      const key = addressOf(attempt);
      const f = current(addresses, key, now);
      if (f.count <= 1) addresses.delete(key);
      else addresses.set(key, { count: f.count - 1, last: f.last });
    },
  };
}
