/**
 * The client's network address of a request. A Web `Request` carries none, so
 * the server that accepted the connection records it beside the request: the
 * adapters do (Bun from `server.requestIP`, Deno from the relay's peer, Node
 * from srvx's `request.ip`), and an app that calls `handle` from its own server
 * can with {@linkcode withClientAddress}. The audit log's `sourceAddress`, the
 * dashboard's sign-in limiter and the limit on refused credentials per address
 * read it with {@linkcode clientAddress}.
 *
 * @module
 */

/** What a server knows of a request's client: its address, or how to find it when first asked. */
export type ClientAddressSource = string | (() => string | null | undefined) | null | undefined;

/**
 * Where a request carries its address: a symbol-keyed property of the request itself (a property costs a request far
 * less than a `WeakMap` entry, which the collector must also trace as an ephemeron on every turn of a busy server).
 */
const ADDRESS = Symbol("svc.clientAddress");

/** A request as {@linkcode withClientAddress} leaves it. */
type Addressed = Request & { [ADDRESS]?: ClientAddressSource };

/** The longest address kept (an IPv6 address with a zone fits; anything longer is not an address). */
const MAX_ADDRESS = 100;

/**
 * Records the address of the client that sent `req`, for {@linkcode clientAddress}:
 * the address, or a function that finds it, called only if it is asked for (the
 * adapters pass one, so a request that never needs its address costs one map entry).
 * An empty or missing address records nothing.
 *
 * @example Serve the toolkit from your own server and pass the peer's address
 * ```ts
 * import { createSvc, withClientAddress } from "@svc/agent-access";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const res = await svc.handle(withClientAddress(new Request("http://localhost/svc/agent/intents"), "203.0.113.7"));
 * console.log(res.status); // 401: no agent key
 * ```
 *
 * @param req The request, as the server received it.
 * @param address The peer's IP address (`"203.0.113.7"`, `"::1"`), or a function that returns it.
 * @returns The same request.
 */
export function withClientAddress(req: Request, address: ClientAddressSource): Request {
  if (typeof address === "function" || (typeof address === "string" && address.length > 0)) {
    (req as Addressed)[ADDRESS] = address;
  }
  return req;
}

/**
 * The address of the client that sent `req`: the one recorded with
 * {@linkcode withClientAddress}, else srvx's `request.ip` (Node), else `null`.
 *
 * @example Read what an adapter recorded
 * ```ts
 * import { clientAddress, withClientAddress } from "@svc/agent-access";
 *
 * const req = withClientAddress(new Request("http://localhost/"), "127.0.0.1");
 * console.log(clientAddress(req)); // "127.0.0.1"
 * console.log(clientAddress(new Request("http://localhost/"))); // null
 * ```
 *
 * @param req The request.
 * @returns The address, or `null` when no server gave one.
 */
export function clientAddress(req: Request): string | null {
  let address: unknown = (req as Addressed)[ADDRESS];
  if (typeof address === "function") {
    address = address() ?? null;
    (req as Addressed)[ADDRESS] = address as string | null; // asked once
  }
  address ??= (req as Request & { ip?: unknown }).ip;
  return typeof address === "string" && address.length > 0 && address.length <= MAX_ADDRESS ? address : null;
}
