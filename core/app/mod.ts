/**
 * The app side: `createSvc` and what it wires (local keys, the `/svc` route table, violation
 * recording, retention, mounting beside the app's own routes). Its storage, cloud link, routes and MCP
 * are rooms of their own (`./storage/`, `./routes/`; the cloud link and MCP in `../cloud_link/` and `../mcp/`).
 *
 * @module
 */
export * from "./app_retention.ts";
export * from "./create_svc.ts";
export * from "./local_keys.ts";
export * from "./mount.ts";
export * from "../oauth/mod.ts";
export * from "./scope_list.ts";
export * from "./svc_config.ts";
export * from "./svc_config_schema.ts";
export * from "./svc_routes.ts";
export * from "./violation_recorder.ts";
