/**
 * Node adapter (22+): serve a fetch handler with srvx, which translates Node's
 * requests into Web Requests (each carries the client's address: srvx's
 * `request.ip`, read by `clientAddress(req)`). Node's server applies
 * `ServeOptions.connections`: past the cap a new connection is closed at once,
 * a request head must arrive within the header timeout and the whole request
 * within the request timeout, and a silent connection is closed after the idle timeout.
 * `close(timeoutMs)` stops accepting, closes idle kept-alive connections at once, answers with
 * `Connection: close` from then on (Node closes a busy connection after that answer), and after
 * `timeoutMs` (default 10 s) closes every connection still open.
 *
 * @example Serve /svc and an app on Node
 * ```ts
 * import { createSvc, withSvc } from "@svc/agent-access";
 * import { serve } from "@svc/agent-access/adapters/node";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const server = await serve(withSvc(svc, () => new Response("app")), { port: 3000 });
 * console.log(server.url); // http://127.0.0.1:3000
 * ```
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line
import { readFileSync } from "node:fs";
import { FastResponse, serve as srvx } from "srvx/node";
import type { FetchHandler } from "../core/app/mod.ts";
import {
  answerWith,
  closingAware,
  connectionBudget,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type RunningServer,
  type ServeOptions,
} from "../core/http/mod.ts";
import { listenError } from "./_listen_error.ts";
import { reachableUrl } from "./_reachable_url.ts";
import { withBufferedBody } from "./_node_body.ts";
import { nodeListener } from "./_node_listener.ts";

export type { FetchHandler, RunningServer, ServeOptions };

/**
 * Serves a fetch handler on Node's HTTP server through srvx. A port in use
 * rejects with one clear message (`code: "EADDRINUSE"`).
 *
 * @example Serve on a free port of the loopback interface
 * ```ts
 * import { serve } from "@svc/agent-access/adapters/node";
 *
 * const server = await serve(() => new Response("hi"), { port: 0, hostname: "127.0.0.1" });
 * console.log(await (await fetch(server.url)).text()); // "hi"
 * await server.close();
 * ```
 *
 * @param fetch The handler.
 * @param options Port (default 8000), hostname (default `127.0.0.1`; `0.0.0.0` to listen on every interface) and
 *   connection limits.
 * @returns The listening server; its `url` is an address a client can open, its `hostname` the address bound.
 */
export async function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const { port = 8000, hostname = "127.0.0.1" } = options;
  const limits = connectionLimits(options);
  // The toolkit's answers as srvx's own Response class: srvx writes their text straight to the socket. On Node only:
  // on Bun or Deno (their node:http) the same process may serve with Bun.serve or Deno.serve, which send only their own.
  if (!("Deno" in globalThis) && !("Bun" in globalThis)) answerWith(FastResponse);
  const served = closingAware((req) => fetch(withBufferedBody(req)));
  const server = srvx({
    fetch: served.handle,
    port,
    hostname,
    silent: true,
    gracefulShutdown: false,
    manual: true, // listens below, once its own listener is in place
    node: {
      headersTimeout: limits.headerTimeoutMs,
      requestTimeout: Math.max(limits.requestTimeoutMs, limits.headerTimeoutMs), // Node refuses a shorter one
      // How often Node checks the header timeout (its default, 30 s, would let a slow head stay that long).
      connectionsCheckingInterval: Math.min(1000, limits.headerTimeoutMs),
      keepAliveTimeout: Math.min(NODE_KEEP_ALIVE_MS, limits.idleTimeoutMs), // between requests
    },
  });
  const node = server.node?.server;
  if (node) {
    node.maxConnections = limits.maxConnections; // Node closes connections past it as they are accepted
    node.setTimeout(limits.idleTimeoutMs); // a socket silent both ways this long is closed
  }
  if (node) {
    // Text answers go out in one write (srvx writes them in two, corked until the next tick).
    node.off("request", server.node!.handler).on("request", nodeListener(served.handle, server.waitUntil));
  }
  await Promise.resolve(server.serve()).catch((error: unknown) => Promise.reject(listenError(error, hostname, port)));
  const address = server.node?.server?.address();
  const bound = typeof address === "object" && address !== null ? address.port : port;
  const boundHost = typeof address === "object" && address !== null ? address.address : hostname;
  const close = async (timeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS) => {
    served.begin(); // every answer from now on says Connection: close, and Node closes its connection after it
    const closing = server.close();
    // Idle keep-alive sockets would hold close() open until they time out.
    if (node && "closeIdleConnections" in node) node.closeIdleConnections();
    // Requests still in flight past the timeout (a body that never ends) lose their connections.
    const late = setTimeout(() => {
      if (node && "closeAllConnections" in node) node.closeAllConnections();
    }, timeoutMs);
    try {
      await closing;
    } finally {
      clearTimeout(late);
    }
  };
  return { url: reachableUrl(boundHost, bound), port: bound, hostname: boundHost, close };
}

/** Node's own wait for the next request on a kept-alive connection, kept unless the idle timeout is shorter. */
const NODE_KEEP_ALIVE_MS = 5_000;

/** The limits with their defaults; the cap follows the open-file limit where it can be read (one descriptor each). */
function connectionLimits(options: ServeOptions): Required<ServeOptions["connections"] & object> {
  const given = Object.fromEntries(Object.entries(options.connections ?? {}).filter(([, v]) => v !== undefined));
  let limitsText: string | undefined;
  try {
    limitsText = readFileSync("/proc/self/limits", "utf8");
  } catch {
    limitsText = undefined; // not Linux
  }
  const budget = connectionBudget(limitsText, 1);
  return { ...DEFAULT_CONNECTION_LIMITS, ...(budget === undefined ? {} : { maxConnections: budget }), ...given };
}
