/**
 * The `/svc` route table: every route the app side serves, as plain data
 * (method, path, auth, body schema) with its `run`. `createSvc` routes on it;
 * tests and documents (the auth matrix, OpenAPI) walk it.
 *
 * @module
 */
import { agentRoutes } from "./agent_routes.ts";
import type { ErrorLogger } from "../http/json.ts";
import type { CompiledIntent } from "./intents.ts";
import type { IntentRunner } from "./intent_runner.ts";
import { keyRoutes } from "./key_routes.ts";
import type { KeyService } from "./key_service.ts";
import { mcpRoutes } from "./mcp.ts";
import { openApiRoutes } from "./svc_openapi.ts";
import type { SvcRoute } from "../http/route.ts";

/** What the table is built from. */
export interface SvcRoutesOptions {
  /** Where keys live. */
  keys: KeyService;
  /** The scopes the app supports. */
  scopes: readonly string[];
  /** Lists and runs intents. */
  runner: IntentRunner;
  /** The compiled registry, for the OpenAPI document. */
  intents: ReadonlyMap<string, CompiledIntent>;
  /** Whether `onAgentIntent` may take intents outside the registry. */
  acceptsOtherIntents: boolean;
  /** Serve `POST /svc/mcp`. */
  mcp: boolean;
  /** Serve `GET /svc/openapi.json`. */
  openapi: boolean;
  /** The body limit, for the MCP transport. */
  bodyLimit: number;
  /** Where failures are logged. */
  log: ErrorLogger;
}

/**
 * Builds the `/svc` routes. Building them calls neither `keys` nor `runner`.
 *
 * @param options Keys, scopes, runner, intents and which optional routes to serve.
 * @returns Every `/svc` route.
 */
export function svcRoutes(options: SvcRoutesOptions): SvcRoute[] {
  const { keys, scopes, runner, intents, acceptsOtherIntents, bodyLimit, log } = options;
  const routes = [
    ...keyRoutes(keys, scopes),
    ...agentRoutes(runner),
    ...(options.mcp ? mcpRoutes({ runner, bodyLimit, log }) : []),
  ];
  if (options.openapi) routes.push(...openApiRoutes({ routes, intents, acceptsOtherIntents }));
  return routes;
}
