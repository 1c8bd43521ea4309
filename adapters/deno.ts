/**
 * Deno adapter: serve a fetch handler (such as `withSvc(svc, app)`) with `Deno.serve`.
 *
 * `Deno.serve` has no socket policy of its own: it exits when file descriptors
 * run out and keeps slow-header connections open. So the adapter listens itself
 * and relays each connection (adapters/deno/relay_server.ts: a cap on connections
 * from the open-file limit, head, request and idle timeouts on every request of a
 * connection, accept failures survived)
 * to a `Deno.serve` on a loopback port, started again if it ever stops. Deno cannot raise its open-file limit: for many connections,
 * start it under a higher `ulimit -n`. Each request carries the client's real address
 * (`clientAddress(req)`), not the relay's. `close(timeoutMs)` stops accepting, answers with
 * `Connection: close` from then on, shuts `Deno.serve` down (idle connections close at once, busy ones after
 * their answer), and after `timeoutMs` (default 10 s) closes every relayed connection still open.
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
import { closingAware, withClientAddress } from "../core/http/mod.ts";
import { defaultLogger as log } from "../core/logging/mod.ts";
import { relayServer } from "./deno/mod.ts";
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
 * Serves a fetch handler with `Deno.serve` behind the connection guard. A port
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
  const served = closingAware(fetch);
  const relay = relayServer(
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
          const answer = served.handle(withClientAddress(req, () => relayed.clientAddressOf(port)));
          return answer instanceof Response ? seen(answer) : answer.then(seen);
        });
        return { port: server.addr.port, finished: server.finished, shutdown: () => server.shutdown() };
      },
      openFileLimits: () => Deno.readTextFileSync("/proc/self/limits"),
    },
    connections,
    log,
  );
  const close = (timeoutMs?: number) => {
    served.begin(); // every answer from now on says Connection: close
    return relay.close(timeoutMs);
  };
  const { hostname: bound, port: boundPort } = listener.addr;
  return Promise.resolve({ url: reachableUrl(bound, boundPort), port: boundPort, hostname: bound, close });
}
