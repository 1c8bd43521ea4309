/**
 * The `/svc` route table: every route the app side serves, as plain data
 * (method, path, auth, body schema) with its `run`. `createSvc` routes on it;
 * tests and documents (the auth matrix, OpenAPI) walk it.
 *
 * @module
 */
import { agentRoutes } from "./agent_routes.ts";
import type { IntentRunner } from "./intent_runner.ts";
import { keyRoutes } from "./key_routes.ts";
import type { KeyService } from "./key_service.ts";
import type { SvcRoute } from "./svc_route.ts";

/**
 * Builds the `/svc` routes. Building them calls neither `keys` nor `runner`.
 *
 * @param keys Where keys live.
 * @param scopes The scopes the app supports.
 * @param runner Lists and runs intents.
 * @returns Every `/svc` route.
 */
export function svcRoutes(keys: KeyService, scopes: readonly string[], runner: IntentRunner): SvcRoute[] {
  return [...keyRoutes(keys, scopes), ...agentRoutes(runner)];
}
