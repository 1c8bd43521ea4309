/**
 * The `/svc` routes: what they are given (`AppSide`), the agent routes, the key routes, the health route and the
 * OpenAPI document of `/svc`.
 *
 * @module
 */
export { activityRoute } from "./activity_route.ts";
export { agentRoutes, MAX_PAYLOAD_DEPTH, runBody, runResponse } from "./agent_routes.ts";
export { approvalRoutes, pendingBody } from "./approval_routes.ts";
export { defineRoute, SVC_PREFIX } from "./app_side.ts";
export type { AppDeps, AppLink, AppSide } from "./app_side.ts";
export { healthRoute } from "./health_route.ts";
export { keyRoutes } from "./key_routes.ts";
export { mayStepUp, stepUpRefusal } from "./scope_step_up.ts";
export { svcOpenApiRoute } from "./svc_openapi.ts";
