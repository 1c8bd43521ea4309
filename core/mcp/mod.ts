/**
 * MCP for agents: the `/svc/mcp` route, its tools (one per intent) and the checks of tool calls.
 *
 * @module
 */
export * from "./mcp_calls.ts";
export * from "./mcp_front.ts";
export * from "./mcp_route.ts";
export * from "./mcp_tools.ts";
