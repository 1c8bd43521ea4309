/**
 * Who may read `/v1/metrics`: a caller presenting the `--metrics-token` as a bearer token when one is set, else a
 * caller on this machine (a loopback address, as the adapters record it). The exposition holds no secret, but it does
 * hold project ids, app labels and traffic figures: not for the internet.
 *
 * @module
 */
import { timingSafeEqual, unauthorized } from "../../core/contract/mod.ts";
import { clientAddress } from "../../core/http/mod.ts";

/**
 * Whether an address is this machine's: `127.0.0.0/8`, `::1`, or an IPv4-mapped loopback.
 *
 * @example Loopback addresses
 * ```ts
 * import { isLoopbackAddress } from "./metrics_auth.ts";
 *
 * console.log(isLoopbackAddress("127.0.0.1"), isLoopbackAddress("::1"), isLoopbackAddress("10.0.0.1")); // true true false
 * ```
 *
 * @param address An IP address.
 * @returns `true` for a loopback address.
 */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  return bare === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

/**
 * Authenticates a metrics scrape, or throws `401 UNAUTHORIZED`.
 *
 * @param req The scrape.
 * @param token The metrics token, or `undefined` for loopback callers only.
 * @returns `null` (the caller has no identity beyond being allowed).
 * @throws {SvcError} `UNAUTHORIZED` for a missing or wrong token, or (without one) a caller not on this machine.
 */
export function authenticateMetrics(req: Request, token: string | undefined): null {
  if (token !== undefined) {
    const header = req.headers.get("authorization") ?? "";
    const presented = header.startsWith("Bearer ") ? header.slice("Bearer ".length) : "";
    if (presented.length > 0 && timingSafeEqual(presented, token)) return null;
    throw unauthorized("The metrics token is required (Authorization: Bearer <--metrics-token>)");
  }
  const address = clientAddress(req);
  if (address !== null && isLoopbackAddress(address)) return null;
  throw unauthorized(
    "Metrics are served to callers on this machine only; start serve with --metrics-token to scrape from elsewhere",
  );
}
