/**
 * MCP for agents: the `/svc/mcp` route, its tools (one per intent) and the checks of tool calls.
 *
 * @module
 */
export { withMcpFront } from "./mcp_front.ts";
export { mcpRoute } from "./mcp_route.ts";
export { intentTool } from "./mcp_tools.ts";
