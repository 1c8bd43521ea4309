/**
 * What every adapter's `serve` takes and returns, free of runtime types.
 *
 * @module
 */
/** The limits of a server (the Deno adapter's connection guard applies all four). */
export interface ConnectionLimits {
  /** Most connections served at once; more are closed at once. Default 256. */
  maxConnections?: number;
  /** Time for each request head (up to its empty line), from its first byte, in milliseconds. Default 10000. */
  headerTimeoutMs?: number;
  /**
   * Time for each whole request (head and body), from its first byte, in milliseconds; never less
   * than `headerTimeoutMs`. Default 300000 (Node's own).
   */
  requestTimeoutMs?: number;
  /** Time a connection may stay silent both ways, in milliseconds (above the 20 s long poll). Default 60000. */
  idleTimeoutMs?: number;
}

/** The defaults of {@linkcode ConnectionLimits}. */
export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 256,
  headerTimeoutMs: 10_000,
  requestTimeoutMs: 300_000,
  idleTimeoutMs: 60_000,
};

/** Where to listen. */
export interface ServeOptions {
  /** Port; 0 picks a free one. Default 8000. */
  port?: number;
  /**
   * Interface. Default `127.0.0.1` (this machine only); `0.0.0.0` (or `::`) listens on every interface, for
   * clients on other machines.
   */
  hostname?: string;
  /**
   * Connection cap and timeouts ({@linkcode DEFAULT_CONNECTION_LIMITS}; the cap defaults to what the
   * open-file limit leaves room for, see {@linkcode connectionBudget}). Deno and Node apply all four;
   * Bun only the idle timeout (`Bun.serve` has no cap, and its own head and request timeouts, see SECURITY.md).
   */
  connections?: ConnectionLimits;
  /**
   * Serve WebSocket upgrades (`Deno.upgradeWebSocket`). On Deno only: the adapter serves its own connections
   * natively, and Deno cannot switch such a connection to a WebSocket, so with this it relays each connection to
   * a `Deno.serve` on a loopback port instead (every request's head and body then timed byte by byte, for about
   * 18 µs of CPU more a request). Default false. The Bun and Node adapters do not upgrade connections.
   */
  webSockets?: boolean;
}

/** A listening server. */
export interface RunningServer {
  /** Base URL, such as `http://127.0.0.1:8000`. */
  url: string;
  /** The port actually bound. */
  port: number;
  /** The address actually bound, such as `127.0.0.1` (this machine only) or `0.0.0.0` (every interface). */
  hostname: string;
  /**
   * Stops accepting connections, closes idle kept-alive ones at once, answers every later response with
   * `Connection: close` (a busy connection closes after its answer), lets in-flight requests finish, and closes
   * the connections still open after `timeoutMs` (default 10 s, `DEFAULT_SHUTDOWN_TIMEOUT_MS`), whatever
   * their clients do. Long polls are the handler's to answer (`cloud.close()`, `svc.close()`), not the server's.
   */
  close: (timeoutMs?: number) => Promise<void>;
}

/**
 * The most connections an open-file limit leaves room for, 64 descriptors kept
 * spare (Deno panics when it cannot open one for itself).
 *
 * @example On a Linux machine with `ulimit -n 1024`
 * ```ts
 * import { connectionBudget } from "./serve_options.ts";
 *
 * console.log(connectionBudget("Max open files            1024                 4096                 files", 3)); // 320
 * ```
 *
 * @param limitsText The text of Linux's `/proc/self/limits`, or `undefined` elsewhere.
 * @param descriptorsPerConnection What one connection costs: 3 behind Deno's relay (client, relay, server), 1 on Node.
 * @returns The budget, or `undefined` when the limit is unknown (the default cap applies).
 */
export function connectionBudget(limitsText: string | undefined, descriptorsPerConnection: number): number | undefined {
  const soft = Number(/Max open files\s+(\d+)/.exec(limitsText ?? "")?.[1]);
  return soft > 0 ? Math.max(1, Math.floor((soft - 64) / descriptorsPerConnection)) : undefined;
}
