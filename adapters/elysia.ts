/**
 * Elysia adapter: a plugin that sends `/svc` and `/svc/*` to the toolkit. The
 * plugin works with Elysia on Bun, Deno and Node. How to serve the app differs:
 * on Bun, Elysia's own `app.listen()`; on Deno and Node, pass `app.fetch` to the
 * toolkit's `adapters/deno` or `adapters/node` `serve` (Elysia's default adapter
 * there cannot listen: "WebStandard does not support listen"; on Node, Elysia's
 * own answer is `@elysiajs/node`, which this package does not need).
 * `elysia` is an optional peer dependency: only this file imports it, so a plain
 * Bun, Deno or Node app never loads it. Requests carry the client's address
 * (`clientAddress(req)`) when the app is served by one of the toolkit's adapters
 * or by `app.listen()` on Bun (`server.requestIP`); elsewhere, record it with
 * `withClientAddress`.
 *
 * @example Add /svc to an Elysia app on Bun
 * ```ts
 * import { Elysia } from "elysia";
 * import { createSvc } from "@svc/agent-access";
 * import { svcPlugin } from "@svc/agent-access/adapters/elysia";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * new Elysia().use(svcPlugin(svc)).get("/", () => "app").listen(3000);
 * ```
 *
 * @example The same app on Node (or Deno, with `adapters/deno`)
 * ```ts
 * import { Elysia } from "elysia";
 * import { createSvc } from "@svc/agent-access";
 * import { svcPlugin } from "@svc/agent-access/adapters/elysia";
 * import { serve } from "@svc/agent-access/adapters/node";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const app = new Elysia().use(svcPlugin(svc)).get("/", () => "app");
 * const server = await serve(app.fetch, { port: 3000 });
 * console.log(server.url); // http://127.0.0.1:3000
 * ```
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line
import { Elysia } from "elysia";
import { withClientAddress } from "../core/http/mod.ts";
import { OAUTH_DISCOVERY_ROUTES } from "../core/oauth/mod.ts";

/** What the plugin reads of Elysia's context: the request and, under `app.listen()` on Bun, the server. */
interface ForwardContext {
  request: Request;
  server: { requestIP?(req: Request): { address: string } | null } | null;
}

/** An Elysia app, as far as the plugin needs to know it (any `new Elysia()` fits). */
export interface ElysiaApp {
  /** Elysia's `.use()`. */
  use(plugin: never): unknown;
}

/**
 * An Elysia plugin that sends `/svc` and `/svc/*` to the toolkit's `handle`.
 * Use it rather than `.mount()`, which strips the prefix that `handle` routes on.
 *
 * @example Mount /svc beside the app's own routes
 * ```ts
 * import { Elysia } from "elysia";
 * import { createSvc } from "@svc/agent-access";
 * import { svcPlugin } from "@svc/agent-access/adapters/elysia";
 *
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const app = new Elysia().use(svcPlugin(svc)).get("/hello", () => "app route");
 * const res = await app.handle(new Request("http://localhost/svc/agent/intents"));
 * console.log(res.status); // 401: no agent key
 * ```
 *
 * @param svc Anything with the toolkit's `handle`.
 * @returns A plugin for `.use()`; it adds a named Elysia instance (`@svc/agent-access`) holding `/svc`, `/svc/*`
 * and the OAuth discovery URLs of `/svc`.
 */
export function svcPlugin(
  svc: { handle: (req: Request) => Promise<Response> },
): <App extends ElysiaApp>(app: App) => App {
  const forward = ({ request, server }: ForwardContext) => {
    // Under `app.listen()` on Bun, ask its server (when asked); served by one of the toolkit's adapters
    // (`app.handle`), Elysia has no server and the request already carries its address.
    if (server?.requestIP) withClientAddress(request, () => server.requestIP!(request)?.address);
    return svc.handle(request);
  };
  const routes = new Elysia({ name: "@svc/agent-access" }).all("/svc", forward).all("/svc/*", forward);
  for (const path of OAUTH_DISCOVERY_ROUTES) routes.get(path, forward);
  return (app) => (app as unknown as Elysia).use(routes) as unknown as typeof app;
}
