/**
 * What every adapter's server does when it is closed: from then on each answer carries
 * `Connection: close` (so clients that reuse connections open no more requests on them), and
 * after a timeout the connections still open are closed, whatever their clients do.
 *
 * @module
 */

/** How long `close()` lets in-flight requests finish before it closes their connections: 10 s. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** A handler that marks its answers once its server is closing. */
export interface ClosingAwareHandler {
  /** The handler to serve: the given one, whose answers carry `Connection: close` once {@linkcode begin} was called. */
  handle(req: Request): Response | Promise<Response>;
  /** The server is closing: every answer from now on (of requests already in flight too) says `Connection: close`. */
  begin(): void;
}

/**
 * Wraps a handler so that, once the server closes, its answers tell clients to close the connection.
 *
 * @example Mark answers while closing
 * ```ts
 * import { closingAware } from "./server_shutdown.ts";
 *
 * const served = closingAware(() => new Response("hi"));
 * served.begin();
 * const res = await served.handle(new Request("http://localhost/"));
 * console.log(res.headers.get("connection")); // "close"
 * ```
 *
 * @param handler The handler.
 * @returns The handler to serve and `begin()`.
 */
export function closingAware(handler: (req: Request) => Response | Promise<Response>): ClosingAwareHandler {
  let closing = false;
  const mark = (res: Response): Response => closing ? withConnectionClose(res) : res;
  return {
    handle(req) {
      const answer = handler(req);
      // By shape: a Response class of the runtime's server (srvx's on Node) need not extend the global one.
      return typeof (answer as Promise<Response>).then === "function"
        ? (answer as Promise<Response>).then(mark)
        : mark(answer as Response);
    },
    begin() {
      closing = true;
    },
  };
}

/** The answer with `Connection: close` (a copy when its headers cannot be changed); a 101 upgrade as it is. */
function withConnectionClose(res: Response): Response {
  if (res.status === 101) return res;
  try {
    res.headers.set("connection", "close");
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.set("connection", "close");
    return copy;
  }
}
