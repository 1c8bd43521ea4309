/**
 * Serving `/svc` beside an app's own routes from one fetch handler.
 *
 * @module
 */
import { errorResponse } from "../http/mod.ts";
import { SvcError } from "../errors/mod.ts";
import { pathnameOf } from "../http/mod.ts";
import { isOAuthDiscoveryPath } from "../oauth/mod.ts";

/** A fetch handler: what Deno.serve, Bun.serve, srvx and Elysia's `mount` take. */
export type FetchHandler = (req: Request) => Response | Promise<Response>;

/**
 * Sends `/svc`, `/svc/*` and the OAuth discovery URLs of `/svc` (`/.well-known/oauth-protected-resource/svc…`,
 * `/.well-known/oauth-authorization-server/svc`…) to the toolkit and everything else to the app.
 *
 * @param svc Anything with the toolkit's `handle`.
 * @param app The app's own handler; without one, other paths get the 404 envelope.
 * @returns One fetch handler.
 *
 * @example Keep an app's routes beside /svc
 * ```ts
 * import { createSvc, withSvc } from "@svc/agent-access";
 * const svc = createSvc({ userResolver: () => null, scopes: [] });
 * const handler = withSvc(svc, () => new Response("my app"));
 * // Deno.serve(handler);
 * ```
 */
export function withSvc(svc: { handle: (req: Request) => Promise<Response> }, app?: FetchHandler): FetchHandler {
  const handle = svc.handle;
  return (req) => {
    const path = pathnameOf(req.url);
    if (path === "/svc" || path.startsWith("/svc/") || isOAuthDiscoveryPath(path)) return handle(req);
    return app ? app(req) : errorResponse(new SvcError("NOT_FOUND", "Not found"));
  };
}
