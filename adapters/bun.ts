/**
 * Bun adapter: serve a fetch handler (such as `withSvc(svc, app)`) with
 * `Bun.serve`. For Elysia apps, see `@svc/agent-access/adapters/elysia`.
 * Each request carries the client's address (`clientAddress(req)`, from
 * `server.requestIP`). `Bun.serve` cannot cap connections nor take a head or
 * request timeout: of `ServeOptions.connections` only the idle timeout applies.
 * On its own (Bun 1.4.5, tests/adapters/bun_idle_test.ts) Bun closes a
 * connection whose first request head is not whole within about 10 s, and one
 * whose later request (head or body) is not whole within the idle timeout.
 * `close(timeoutMs)` stops accepting (`server.stop(false)`: in-flight requests finish), answers with
 * `Connection: close` from then on (Bun closes the connection after that answer), and after `timeoutMs`
 * (default 10 s) closes every connection still open (`server.stop(true)`).
 *
 * @example Serve /svc and an app on Bun
 * ```ts
 * import { createSvc, withSvc } from "@svc/agent-access";
 * import { serve } from "@svc/agent-access/adapters/bun";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const server = await serve(withSvc(svc, () => new Response("app")), { port: 3000 });
 * console.log(server.url); // http://127.0.0.1:3000
 * ```
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line
import type { FetchHandler } from "../core/app/mod.ts";
import { withClientAddress } from "../core/http/mod.ts";
import {
  closingAware,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  type RunningServer,
  type ServeOptions,
} from "../core/http/mod.ts";
import { listenError } from "./_listen_error.ts";
import { reachableUrl } from "./_reachable_url.ts";

export type { FetchHandler, RunningServer, ServeOptions };

interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void>;
  requestIP(req: Request): { address: string } | null;
}
type BunHandler = (req: Request, server: BunServer) => Response | Promise<Response>;
declare const Bun: {
  serve(options: { port: number; hostname: string; idleTimeout: number; fetch: BunHandler }): BunServer;
};

/** The longest idle timeout Bun takes, in seconds. */
const BUN_MAX_IDLE_S = 255;

/**
 * Serves a fetch handler with `Bun.serve`. A port in use rejects with one
 * clear message (`code: "EADDRINUSE"`).
 *
 * @example Serve on a free port of the loopback interface
 * ```ts
 * import { serve } from "@svc/agent-access/adapters/bun";
 *
 * const server = await serve(() => new Response("hi"), { port: 0, hostname: "127.0.0.1" });
 * console.log(await (await fetch(server.url)).text()); // "hi"
 * await server.close();
 * ```
 *
 * @param fetch The handler.
 * @param options Port (default 8000), hostname (default `127.0.0.1`; `0.0.0.0` to listen on every interface) and
 *   `connections.idleTimeoutMs` (default 60 s, at most 255 s; Bun has no connection cap, nor a head or request timeout
 *   to set).
 * @returns The listening server; its `url` is an address a client can open, its `hostname` the address bound.
 */
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const { port = 8000, hostname = "127.0.0.1" } = options;
  const idleMs = options.connections?.idleTimeoutMs ?? DEFAULT_CONNECTION_LIMITS.idleTimeoutMs;
  // Bun's own default (10 s) would cut a 20 s long poll; its idle timer also ends slow request heads.
  const idleTimeout = Math.min(BUN_MAX_IDLE_S, Math.max(1, Math.ceil(idleMs / 1000)));
  try {
    let bun: BunServer | undefined;
    const served = closingAware((req) => fetch(withClientAddress(req, () => bun?.requestIP(req)?.address)));
    const server = bun = Bun.serve({ port, hostname, idleTimeout, fetch: served.handle });
    const close = async (timeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS) => {
      served.begin(); // every answer from now on says Connection: close
      const late = setTimeout(() => server.stop(true), timeoutMs); // then whatever is still open is closed
      try {
        await server.stop(false);
      } finally {
        clearTimeout(late);
      }
    };
    const url = reachableUrl(server.hostname, server.port);
    return Promise.resolve({ url, port: server.port, hostname: server.hostname, close });
  } catch (error) {
    return Promise.reject(listenError(error, hostname, port));
  }
}
