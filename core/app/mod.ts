/**
 * The app side: `createSvc` and what it wires (local keys, the `/svc` route table, violation
 * recording, retention, mounting beside the app's own routes). Its storage, cloud link, routes and MCP
 * are rooms of their own (`./storage/`, `./routes/`; the cloud link and MCP in `../cloud_link/` and `../mcp/`).
 *
 * @module
 */
export { startRetention } from "./app_retention.ts";
export { createSvc, createSvcWith, DEFAULT_SVC_RATE_LIMITS } from "./create_svc.ts";
export type { SvcInternals } from "./create_svc.ts";
export { localKeys } from "./local_keys.ts";
export { withSvc } from "./mount.ts";
export type { FetchHandler } from "./mount.ts";
export type { ScopeDefinition, ScopeList } from "./scope_list.ts";
export type {
  ApprovalsConfig,
  CloudSvcConfig,
  HybridSvcConfig,
  KeyLifetimeConfig,
  LocalSvcConfig,
  McpOptions,
  Svc,
  SvcCloudConfig,
  SvcConfig,
  SvcHealth,
  SvcMode,
  SvcOptions,
  SvcRateLimitName,
} from "./svc_config.ts";
export { svcRoutes } from "./svc_routes.ts";
export { createViolationRecorder } from "./violation_recorder.ts";
