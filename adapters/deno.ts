/**
 * Deno adapter: serve a fetch handler (such as `withSvc(svc, app)`) with Deno's own HTTP server.
 *
 * `Deno.serve` has no socket policy of its own: it exits when file descriptors
 * run out and keeps slow-header connections open. So the adapter listens
 * itself, accepts each connection under a cap from the open-file limit
 * (surviving accept failures), and hands it to Deno's native HTTP server
 * (adapters/deno/native_server.ts), timing it by its requests: the first head
 * within the header timeout, a request with a body answered within the request
 * timeout, a connection between requests kept for the idle timeout (5 s at most).
 * With `webSockets: true` (Deno cannot switch a natively served connection to a
 * WebSocket), or where this Deno has no way to serve HTTP on a connection of one's
 * own, the adapter relays each connection to a `Deno.serve` on a loopback port instead
 * (adapters/deno/relay_server.ts: the same cap, every request's head and body timed
 * byte by byte, a second socket per connection). Deno cannot raise its open-file
 * limit: for many connections, start it under a higher `ulimit -n`. Each request
 * carries the client's address (`clientAddress(req)`). `close(timeoutMs)` stops
 * accepting, answers with `Connection: close` from then on, closes idle connections
 * at once and busy ones after their answer, and after `timeoutMs` (default 10 s)
 * closes every connection still open.
 *
 * @example Serve /svc and an app on Deno
 * ```ts
 * import { createSvc, withSvc } from "@svc/agent-access";
 * import { serve } from "@svc/agent-access/adapters/deno";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const server = await serve(withSvc(svc, () => new Response("app")), { port: 8000 });
 * console.log(server.url); // http://127.0.0.1:8000
 * ```
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line
import type { FetchHandler } from "../core/app/mod.ts";
import type { TcpConnection } from "./deno/mod.ts";
import { answerKeptByClone, closingAware, withClientAddress } from "../core/http/mod.ts";
import { defaultLogger as log } from "../core/logging/mod.ts";
import { nativeServer, relayServer, serveOnConnection } from "./deno/mod.ts";
import type { RunningServer, ServeOptions } from "../core/http/mod.ts";
import { listenError } from "./_listen_error.ts";
import { reachableUrl } from "./_reachable_url.ts";

export type { FetchHandler, RunningServer, ServeOptions };

// The part of Deno's API used here, declared so the npm build type-checks without Deno's types.
type Addr = { hostname: string; port: number };
type DenoServer = { addr: Addr; finished: Promise<void>; shutdown(): Promise<void> };
type DenoHandler = (req: Request, info: { remoteAddr: Addr }) => Response | Promise<Response>;
declare const Deno: {
  serve(options: Addr & { onListen(): void }, handler: DenoHandler): DenoServer;
  listen(options: Addr): { addr: Addr; accept(): Promise<TcpConnection>; close(): void };
  connect(options: Addr): Promise<TcpConnection>;
  readTextFileSync(path: string): string;
};

/**
 * Serves a fetch handler with Deno's HTTP server under the connection policy. A port
 * in use rejects with one clear message (`code: "EADDRINUSE"`).
 *
 * @example Serve on a free port of the loopback interface
 * ```ts
 * import { serve } from "@svc/agent-access/adapters/deno";
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
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const { port = 8000, hostname = "127.0.0.1", connections = {} } = options;
  let listener: ReturnType<typeof Deno.listen>;
  try {
    listener = Deno.listen({ port, hostname });
  } catch (error) {
    return Promise.reject(listenError(error, hostname, port));
  }
  // Refusals answered again and again as clones of one kept Response: Deno builds a non-200 Response with a native
  // answer prepared (about 1.2 µs), a clone without (0.1 µs).
  answerKeptByClone(true);
  const served = closingAware(fetch);
  // WebSockets need the relay: Deno cannot switch a connection it serves natively to another protocol.
  const serveOn = options.webSockets ? undefined : serveOnConnection();
  const openFileLimits = () => Deno.readTextFileSync("/proc/self/limits");
  const server = serveOn
    ? nativeServer(
      {
        accept: () => listener.accept(),
        closeListener: () => listener.close(),
        serveConnection: (conn, signal, handler) => serveOn(conn, signal, handler, failed, () => {}),
        openFileLimits,
      },
      (req, address) => served.handle(withClientAddress(req, address)),
      connections,
      log,
    )
    : relayed(listener, served.handle, connections, openFileLimits);
  const close = (timeoutMs?: number) => {
    served.begin(); // every answer from now on says Connection: close
    return server.close(timeoutMs);
  };
  const { hostname: bound, port: boundPort } = listener.addr;
  return Promise.resolve({ url: reachableUrl(bound, boundPort), port: boundPort, hostname: bound, close });
}

/** A handler that threw (the toolkit's do not): logged, answered 500; not logged when its client went away. */
function failed(error: unknown): Response {
  if ((error as Error | undefined)?.name !== "AbortError") log("the handler failed", error);
  return new Response("Internal Server Error", { status: 500 });
}

/** The relay in front of a `Deno.serve` on a loopback port, where Deno cannot serve a connection of one's own. */
function relayed(
  listener: ReturnType<typeof Deno.listen>,
  handle: (req: Request) => Response | Promise<Response>,
  connections: ServeOptions["connections"] & object,
  openFileLimits: () => string,
): { close(timeoutMs?: number): Promise<void> } {
  return relayServer(
    {
      accept: () => listener.accept(),
      closeListener: () => listener.close(),
      connect: (port) => Deno.connect({ hostname: "127.0.0.1", port }),
      start(relayed) {
        const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, (req, info) => {
          const port = info.remoteAddr.port;
          // Only Deno.upgradeWebSocket makes a 101: from here on the relay passes frames, untimed.
          const seen = (response: Response) => {
            if (response.status === 101) relayed.upgraded(port);
            return response;
          };
          const answer = handle(withClientAddress(req, () => relayed.clientAddressOf(port)));
          return answer instanceof Response ? seen(answer) : answer.then(seen);
        });
        return { port: server.addr.port, finished: server.finished, shutdown: () => server.shutdown() };
      },
      openFileLimits,
    },
    connections,
    log,
  );
}
