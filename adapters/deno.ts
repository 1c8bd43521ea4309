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
 * console.log(server.url);
 * ```
 *
 * @module
 */
import type { FetchHandler } from "../core/app/mount.ts";
import type { RunningServer, ServeOptions } from "../core/http/serve_options.ts";

export type { FetchHandler, RunningServer, ServeOptions };

/**
 * Serves a fetch handler with `Deno.serve`.
 *
 * @param fetch The handler.
 * @param options Port and hostname.
 * @returns The listening server.
 */
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  return new Promise((resolve) => {
    const server = Deno.serve({
      port: options.port ?? 8000,
      hostname: options.hostname ?? "0.0.0.0",
      onListen: ({ hostname, port }) =>
        resolve({ url: `http://${hostname}:${port}`, port, close: () => server.shutdown() }),
    }, fetch);
  });
}
