/**
 * An in-memory token bucket per caller (an agent key on `/svc/agent/run`, a
 * project on the cloud's write routes). A bucket holds `limit` tokens and
 * refills at `limit` per `windowMs`. Memory is bounded: a bucket untouched for
 * a window has refilled completely, the same as no bucket, so it expires, and
 * past `maxEntries` the least recently used one goes.
 *
 * @module
 */
import { BoundedMap } from "../cache/mod.ts";
import { SvcError } from "../errors/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** A rate: at most `limit` requests per `windowMs` (bursts up to `limit`). */
export interface RateLimit {
  /** Requests allowed per window, and the largest burst. */
  limit: number;
  /** The window, in milliseconds. */
  windowMs: number;
  /** Most callers tracked at once. Default 10000. */
  maxEntries?: number;
}

/**
 * A side's rate limits by name, as configured: each one a rate, or `false` to turn it off (a missing one
 * keeps its default); `false` for the whole turns every one off.
 *
 * @example The app's limits, one tightened and one off
 * ```ts
 * import type { RateLimits } from "./rate_limiter.ts";
 * const limits: RateLimits<"perKey" | "refusalsPerAddress"> = {
 *   perKey: { limit: 60, windowMs: 60_000 },
 *   refusalsPerAddress: false,
 * };
 * ```
 */
export type RateLimits<K extends string> = { readonly [P in K]?: RateLimit | false } | false;

/**
 * The rate of one named limit: the configured one, else its default; `false` when turned off.
 *
 * @param given The configured limits, if any.
 * @param defaults Every limit's default rate.
 * @param which The limit.
 * @returns Its rate, or `false`.
 */
export function rateOf<K extends string>(
  given: RateLimits<K> | undefined,
  defaults: Readonly<Record<K, RateLimit>>,
  which: K,
): RateLimit | false {
  if (given === false) return false;
  return given?.[which] ?? defaults[which];
}

/** What the limiter decided for one request. */
export type RateDecision =
  | { allowed: true }
  | {
    allowed: false;
    /** Milliseconds until a token is back. */
    retryAfterMs: number;
    /** `true` for the first refusal since the caller was last allowed: record it once, not per request. */
    first: boolean;
  };

/** Counts requests per caller. */
export interface RateLimiter {
  /** Takes a token for `caller`, or refuses. */
  take(caller: string, now?: number): RateDecision;
  /** How many callers are tracked (for tests and metrics). */
  readonly size: number;
}

interface Bucket {
  tokens: number;
  at: number;
  refused: boolean;
}

/**
 * Creates a limiter.
 *
 * @param rate The rate and the memory bound.
 * @param clock Milliseconds since the epoch, when `take` is given no time (tests inject one).
 * @returns The limiter.
 * @throws {RangeError} When `limit` or `windowMs` is not a positive number.
 */
export function createRateLimiter(rate: RateLimit, clock: () => number = PLATFORM.now): RateLimiter {
  const { limit, windowMs } = rate;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError("rateLimit needs limit >= 1 and windowMs > 0");
  const perMs = limit / windowMs;
  /** The time of the call being served. */
  let servedAt = 0;
  // A bucket untouched for a whole window has refilled completely, the same as no bucket: it expires then.
  const buckets = new BoundedMap<string, Bucket>({
    maxEntries: rate.maxEntries ?? 10_000,
    ttlMs: windowMs,
    now: () => servedAt,
  });

  return {
    take(caller, now = clock()) {
      servedAt = now;
      let bucket = buckets.get(caller);
      if (bucket === undefined) {
        bucket = { tokens: limit, at: now, refused: false };
      } else {
        bucket.tokens = Math.min(limit, bucket.tokens + (now - bucket.at) * perMs);
        bucket.at = now;
      }
      buckets.set(caller, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        bucket.refused = false;
        return { allowed: true };
      }
      const first = !bucket.refused;
      bucket.refused = true;
      return { allowed: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / perMs), first };
    },
    get size() {
      return buckets.size;
    },
  };
}

/**
 * The contract's refusal: `429 RATE_LIMITED` with `Retry-After` in whole seconds (at least 1).
 *
 * @param retryAfterMs Milliseconds until a token is back.
 * @returns The error to throw.
 */
export function rateLimited(retryAfterMs: number): SvcError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new SvcError("RATE_LIMITED", `Too many requests: retry in ${seconds} s`, {
    headers: { "retry-after": String(seconds) },
    details: { retryAfterMs },
  });
}
