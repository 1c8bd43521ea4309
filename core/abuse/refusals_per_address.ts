/**
 * A limit on refused credentials per client address: every refused attempt
 * (a `401` on a credential the side checks) takes a token of the address's
 * bucket, and while the bucket is empty a refused credential from that address
 * is answered `429 RATE_LIMITED` with `Retry-After` instead of `401`. Only
 * refusals are limited: a valid credential from the same address is always
 * served, so the clients behind one proxy's address never lock each other out
 * (nor out of a hybrid app's revoke mirror). A bucket holds `limit` tokens and
 * refills at `limit` per `windowMs`, so an address gets `limit` refused
 * attempts at once and then `limit` per window. Requests with no known address
 * ({@linkcode clientAddress}) are not limited. IPv6 addresses count per /64
 * (one host usually holds a whole /64). Memory is bounded as in
 * {@linkcode createRateLimiter}.
 *
 * @module
 */
import { clientAddress, type RefusalCounter } from "../http/mod.ts";
import { createRateLimiter, type RateLimit, rateLimited } from "./rate_limiter.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Counts refused credentials per client address, and answers 429 to an address's refusals past the limit. */
export interface RefusalsPerAddress extends RefusalCounter {
  /**
   * Milliseconds until the request's address may present a refused credential again (0 when it may now), so a
   * costly check (cloud mode's verify call) can be skipped for an address past its budget.
   *
   * @param req The request.
   * @returns The wait, 0 when the address has refusals left or is unknown.
   */
  waitMs(req: Request): number;
  /** How many addresses are tracked. */
  readonly size: number;
}

/**
 * Creates the limit.
 *
 * @example Ten refused attempts a minute per address
 * ```ts
 * import { createRefusalsPerAddress } from "./refusals_per_address.ts";
 * import { withClientAddress } from "../http/mod.ts";
 *
 * const limit = createRefusalsPerAddress({ limit: 10, windowMs: 60_000 });
 * const req = withClientAddress(new Request("http://localhost/svc/agent/run"), "203.0.113.7");
 * for (let i = 0; i < 10; i++) limit.refused(req); // ten 401s
 * try {
 *   limit.refused(req);
 * } catch (error) {
 *   console.log((error as { code: string }).code); // RATE_LIMITED
 * }
 * ```
 *
 * @param rate Refused attempts allowed per window (bursts up to `limit`), and the memory bound.
 * @param now The clock, in milliseconds. Default `Date.now`.
 * @returns The limit.
 * @throws {RangeError} When `limit` or `windowMs` is not a positive number.
 */
export function createRefusalsPerAddress(rate: RateLimit, now: () => number = PLATFORM.now): RefusalsPerAddress {
  const buckets = createRateLimiter(rate);
  /** Addresses past their budget, with when a token is back (bounded like the buckets; oldest go first). */
  const blocked = new Map<string, number>();
  return {
    refused(req) {
      const address = clientAddress(req);
      if (address === null) return;
      const key = addressKey(address);
      const decision = buckets.take(key, now());
      if (decision.allowed) return;
      blocked.delete(key);
      blocked.set(key, now() + decision.retryAfterMs);
      if (blocked.size > 10_000) blocked.delete(blocked.keys().next().value!);
      throw rateLimited(decision.retryAfterMs);
    },
    waitMs(req) {
      if (blocked.size === 0) return 0; // nothing blocked: the address is not looked up
      const address = clientAddress(req);
      if (address === null) return 0;
      const key = addressKey(address);
      const until = blocked.get(key);
      if (until === undefined) return 0;
      const left = until - now();
      if (left <= 0) blocked.delete(key);
      return Math.max(0, left);
    },
    get size() {
      return buckets.size;
    },
  };
}

/**
 * What an address is counted under: an IPv4 address (also one mapped into
 * IPv6) as it is, an IPv6 address by its /64 prefix.
 *
 * @param address The client's address.
 * @returns The key.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(":")) return address;
  const bare = address.replace(/%.*$/, "").toLowerCase(); // no zone
  const [head, tail] = bare.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups = tail === undefined
    ? left
    : [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
