/**
 * A limit on refused credentials per client address: every refused attempt
 * (a `401` on a credential the side checks) takes a token of the address's
 * bucket, and while the bucket is empty every request from that address is
 * answered `429 RATE_LIMITED` with `Retry-After` before any credential lookup
 * or write. A bucket holds `limit` tokens and refills at `limit` per
 * `windowMs`, so an address gets `limit` refused attempts at once and then
 * `limit` per window; one that stops being refused is served again as soon as
 * a token is back. Requests with no known address ({@linkcode clientAddress})
 * are not limited. IPv6 addresses count per /64 (one host usually holds a
 * whole /64). Memory is bounded as in {@linkcode createRateLimiter}.
 *
 * @module
 */
import { clientAddress } from "./client_address.ts";
import { createRateLimiter, type RateLimit, rateLimited } from "./rate_limiter.ts";

/** Counts refused credentials per client address, and refuses the addresses over the limit. */
export interface RefusalsPerAddress {
  /**
   * Throws `429 RATE_LIMITED` (with `Retry-After`) when the request's address has no refused attempt left.
   *
   * @param req The request.
   */
  check(req: Request): void;
  /**
   * Counts a refused credential from the request's address.
   *
   * @param req The request.
   */
  refused(req: Request): void;
  /** How many addresses are tracked. */
  readonly size: number;
}

/**
 * Creates the limit.
 *
 * @example Ten refused attempts a minute per address
 * ```ts
 * import { createRefusalsPerAddress } from "./refusals_per_address.ts";
 * import { withClientAddress } from "./client_address.ts";
 *
 * const limit = createRefusalsPerAddress({ limit: 10, windowMs: 60_000 });
 * const req = withClientAddress(new Request("http://localhost/svc/agent/run"), "203.0.113.7");
 * for (let i = 0; i < 10; i++) limit.refused(req);
 * try {
 *   limit.check(req);
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
export function createRefusalsPerAddress(rate: RateLimit, now: () => number = Date.now): RefusalsPerAddress {
  const buckets = createRateLimiter(rate);
  return {
    check(req) {
      const address = clientAddress(req);
      if (address === null || buckets.size === 0) return;
      const waitMs = buckets.wait(addressKey(address), now());
      if (waitMs > 0) throw rateLimited(waitMs);
    },
    refused(req) {
      const address = clientAddress(req);
      if (address !== null) buckets.take(addressKey(address), now());
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
