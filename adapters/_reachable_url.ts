/**
 * The URL to print for a listening server: a wildcard address (`0.0.0.0`,
 * `::`) is where the server listens, not where a client can reach it.
 *
 * @module
 */

/**
 * A base URL a client on this machine can open.
 *
 * @example A server bound to every interface
 * ```ts
 * import { reachableUrl } from "./_reachable_url.ts";
 *
 * console.log(reachableUrl("0.0.0.0", 8000)); // http://127.0.0.1:8000
 * ```
 *
 * @param hostname The address the server bound.
 * @param port The port it bound.
 * @returns `http://127.0.0.1:PORT` for `0.0.0.0`, `http://[::1]:PORT` for `::`, else the address itself.
 */
export function reachableUrl(hostname: string, port: number): string {
  if (hostname === "0.0.0.0" || hostname === "") return `http://127.0.0.1:${port}`;
  if (hostname === "::" || hostname === "[::]") return `http://[::1]:${port}`;
  return `http://${hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname}:${port}`;
}
