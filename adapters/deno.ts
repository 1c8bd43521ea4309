/**
 * Deno adapter: serve a fetch handler (such as `withSvc(svc, app)`) with `Deno.serve`.
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
import type { FetchHandler } from "../core/app/mount.ts";
import type { RunningServer, ServeOptions } from "../core/http/serve_options.ts";
import { listenError } from "./_listen_error.ts";
import { reachableUrl } from "./_reachable_url.ts";

export type { FetchHandler, RunningServer, ServeOptions };

// The part of Deno's API used here, declared so the npm build type-checks without Deno's types.
interface DenoServer {
  shutdown(): Promise<void>;
}
type OnListen = (addr: { hostname: string; port: number }) => void;
declare const Deno: {
  serve(options: { port: number; hostname: string; onListen: OnListen }, handler: FetchHandler): DenoServer;
};

/**
 * Serves a fetch handler with `Deno.serve`. A port in use rejects with one
 * clear message (`code: "EADDRINUSE"`).
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
 * @param options Port (default 8000) and hostname (default `0.0.0.0`).
 * @returns The listening server; its `url` is an address a client can open.
 */
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const { port = 8000, hostname = "0.0.0.0" } = options;
  return new Promise((resolve, reject) => {
    try {
      const server = Deno.serve({
        port,
        hostname,
        onListen: (addr) =>
          resolve({ url: reachableUrl(addr.hostname, addr.port), port: addr.port, close: () => server.shutdown() }),
      }, fetch);
    } catch (error) {
      reject(listenError(error, hostname, port));
    }
  });
}
