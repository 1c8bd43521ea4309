/**
 * The `/svc` route table: every route the app side serves, as plain data
 * (method, path, auth, schemas) with its `run`. `createSvc` dispatches on it;
 * tests and documents (the auth matrix, OpenAPI) walk it.
 *
 * @module
 */
import type { Route } from "../http/mod.ts";
import { activityRoute, agentRoutes, approvalRoutes } from "./routes/mod.ts";
import type { AppSide } from "./routes/mod.ts";
import { healthRoute, keyRoutes } from "./routes/mod.ts";
import { mcpRoute } from "../mcp/mod.ts";
import { svcOpenApiRoute } from "./routes/mod.ts";

/** Which optional routes to serve. */
export interface SvcRoutesOptions {
  /** Serve `POST /svc/mcp`. */
  mcp: boolean;
  /** What its `tools/list` shows (`mcp.listTools`). Default `granted`. */
  listTools?: "granted" | "all";
  /** Serve `GET /svc/openapi.json`. */
  openapi: boolean;
  /** The OAuth server's rows (discovery and `/svc/oauth/*`), when `oauth` is set. */
  oauth?: readonly Route<AppSide>[];
}

/**
 * Builds the `/svc` route table.
 *
 * @param options Which optional routes to serve.
 * @returns Every `/svc` route.
 */
export function svcRoutes(options: SvcRoutesOptions): Route<AppSide>[] {
  const routes = [
    ...keyRoutes,
    ...agentRoutes,
    ...approvalRoutes,
    activityRoute,
    healthRoute,
    ...(options.mcp ? [mcpRoute({ listTools: options.listTools })] : []),
    ...options.oauth ?? [],
  ];
  if (options.openapi) routes.push(svcOpenApiRoute(routes));
  return routes;
}
