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

/** A rate: at most `limit` requests per `windowMs` (bursts up to `limit`). */
export interface RateLimit {
  /** Requests allowed per window, and the largest burst. */
  limit: number;
  /** The window, in milliseconds. */
  windowMs: number;
  /** Most callers tracked at once. Default 10000. */
  maxEntries?: number;
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
 * @returns The limiter.
 * @throws {RangeError} When `limit` or `windowMs` is not a positive number.
 */
export function createRateLimiter(rate: RateLimit): RateLimiter {
  const { limit, windowMs } = rate;
  if (!(limit >= 1) || !(windowMs > 0)) throw new RangeError("rateLimit needs limit >= 1 and windowMs > 0");
  const perMs = limit / windowMs;
  /** The time of the call being served. */
  let clock = 0;
  // A bucket untouched for a whole window has refilled completely, the same as no bucket: it expires then.
  const buckets = new BoundedMap<string, Bucket>({
    maxEntries: rate.maxEntries ?? 10_000,
    ttlMs: windowMs,
    now: () => clock,
  });

  return {
    take(caller, now = Date.now()) {
      clock = now;
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
