/**
 * Bun adapter: serve a fetch handler (such as `withSvc(svc, app)`) with
 * `Bun.serve`. For Elysia apps, see `@svc/agent-access/adapters/elysia`.
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
import type { FetchHandler } from "../core/app/mount.ts";
import type { RunningServer, ServeOptions } from "../core/http/serve_options.ts";
import { listenError } from "./_listen_error.ts";
import { reachableUrl } from "./_reachable_url.ts";

export type { FetchHandler, RunningServer, ServeOptions };

interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
declare const Bun: { serve(options: { port: number; hostname: string; fetch: FetchHandler }): BunServer };

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
 * @param options Port (default 8000) and hostname (default `0.0.0.0`).
 * @returns The listening server; its `url` is an address a client can open.
 */
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const { port = 8000, hostname = "0.0.0.0" } = options;
  try {
    const server = Bun.serve({ port, hostname, fetch });
    const url = reachableUrl(server.hostname, server.port);
    return Promise.resolve({ url, port: server.port, close: () => server.stop(false) });
  } catch (error) {
    return Promise.reject(listenError(error, hostname, port));
  }
}
