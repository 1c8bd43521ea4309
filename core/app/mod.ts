/**
 * The app side: `createSvc` and what it wires (keys, intents, the `/svc` routes,
 * MCP, the outbox to the cloud).
 *
 * @module
 */
export * from "./agent_routes.ts";
export * from "./app_migrations.ts";
export * from "./app_storage.ts";
export * from "./cloud_client.ts";
export * from "./cloud_keys.ts";
export * from "./create_svc.ts";
export * from "./intent_runner.ts";
export * from "./intents.ts";
export * from "./key_routes.ts";
export * from "./key_service.ts";
export * from "./libsql_app_storage.ts";
export * from "./local_keys.ts";
export * from "./manifest_upload.ts";
export * from "./mcp.ts";
export * from "./mcp_tools.ts";
export * from "./mount.ts";
export * from "./oauth/mod.ts";
export * from "./outbox.ts";
export * from "./svc_config.ts";
export * from "./svc_openapi.ts";
export * from "./svc_routes.ts";
export * from "./violation_queue.ts";
