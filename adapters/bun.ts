/**
 * Bun adapter: an Elysia plugin that mounts `/svc`, and `serve` for plain `Bun.serve`.
 * The plugin also works with Elysia on Deno.
 *
 * @example Add /svc to an Elysia app
 * ```ts
 * import { Elysia } from "elysia";
 * import { createSvc } from "@svc/agent-access";
 * import { svcPlugin } from "@svc/agent-access/adapters/bun";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * new Elysia().use(svcPlugin(svc)).get("/", () => "app").listen(3000);
 * ```
 *
 * @module
 */
import { Elysia } from "elysia";
import type { FetchHandler } from "../core/app/mount.ts";
import type { RunningServer, ServeOptions } from "../core/http/serve_options.ts";

export type { FetchHandler, RunningServer, ServeOptions };

interface BunServer {
  port: number;
  hostname: string;
  stop(closeActiveConnections?: boolean): Promise<void>;
}
declare const Bun: { serve(options: { port: number; hostname: string; fetch: FetchHandler }): BunServer };

/**
 * An Elysia plugin that sends `/svc` and `/svc/*` to the toolkit's `handle`.
 *
 * @param svc Anything with the toolkit's `handle`.
 * @returns A named Elysia instance, for `.use()`.
 */
export function svcPlugin(svc: { handle: (req: Request) => Promise<Response> }): Elysia {
  // Routes rather than `.mount()`, which would strip the prefix that `handle` routes on.
  const forward = ({ request }: { request: Request }) => svc.handle(request);
  return new Elysia({ name: "@svc/agent-access" }).all("/svc", forward).all("/svc/*", forward) as unknown as Elysia;
}

/**
 * Serves a fetch handler with `Bun.serve`.
 *
 * @param fetch The handler.
 * @param options Port and hostname.
 * @returns The listening server.
 */
export function serve(fetch: FetchHandler, options: ServeOptions = {}): Promise<RunningServer> {
  const server = Bun.serve({ port: options.port ?? 8000, hostname: options.hostname ?? "0.0.0.0", fetch });
  return Promise.resolve({
    url: `http://${server.hostname}:${server.port}`,
    port: server.port,
    close: () => server.stop(false),
  });
}
