/**
 * Node adapter (22+): serve a fetch handler with srvx, which translates Node's
 * requests into Web Requests.
 *
 * @example Serve /svc and an app on Node
 * ```ts
 * import { createSvc, withSvc } from "@svc/agent-access";
 * import { serve } from "@svc/agent-access/adapters/node";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const server = await serve(withSvc(svc, () => new Response("app")), { port: 3000 });
 * console.log(server.url);
 * ```
 *
 * @module
 */
import { serve as srvx } from "srvx/node";
import type { FetchHandler } from "../core/app/mount.ts";
import type { RunningServer, ServeOptions } from "../core/http/serve_options.ts";

export type { FetchHandler, RunningServer, ServeOptions };

/**
 * Serves a fetch handler on Node's HTTP server through srvx.
 *
 * @param fetch The handler.
 * @param options Port and hostname.
 * @returns The listening server.
 */
export async function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const hostname = options.hostname ?? "0.0.0.0";
  const server = srvx({ fetch, port: options.port ?? 8000, hostname, silent: true, gracefulShutdown: false });
  await server.ready();
  const address = server.node?.server?.address();
  const port = typeof address === "object" && address !== null ? address.port : Number(options.port);
  const close = async () => {
    const closing = server.close();
    // Idle keep-alive sockets would hold close() open until they time out.
    const node = server.node?.server;
    if (node && "closeIdleConnections" in node) node.closeIdleConnections();
    await closing;
  };
  return { url: `http://${hostname}:${port}`, port, close };
}
