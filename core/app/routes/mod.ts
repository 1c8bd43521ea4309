/**
 * The `/svc` routes: what they are given (`AppSide`), the agent routes, the key routes, the health route and the
 * OpenAPI document of `/svc`.
 *
 * @module
 */
export * from "./agent_routes.ts";
export * from "./app_side.ts";
export * from "./health_route.ts";
export * from "./key_routes.ts";
export * from "./scope_step_up.ts";
export * from "./svc_openapi.ts";
