/**
 * `POST /svc/mcp`: the Model Context Protocol over Streamable HTTP, stateless.
 * The dispatcher has checked the agent key; `tools/list` lists the intents this
 * key may call and `tools/call` runs one through the intent runner, the same
 * chain as `POST /svc/agent/run`. The MCP SDK is imported on the first request,
 * so apps that never see an MCP client do not load it.
 *
 * @module
 */
import { z } from "zod";
import { isSvcError } from "../contract/errors.ts";
import { redactSecrets } from "../contract/secrets.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../contract/version.ts";
import type { Route } from "../http/route.ts";
import { type AppDeps, type AppSide, defineRoute } from "./app_side.ts";
import type { VerifiedKey } from "./key_service.ts";
import { intentTool, type McpTool, toolError, toolResult } from "./mcp_tools.ts";

type Sdk = Awaited<ReturnType<typeof importSdk>>;
let sdk: Promise<Sdk> | undefined;

async function importSdk() {
  const [server, transport, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  return {
    Server: server.Server,
    Transport: transport.WebStandardStreamableHTTPServerTransport,
    ListTools: types.ListToolsRequestSchema,
    CallTool: types.CallToolRequestSchema,
    McpError: types.McpError,
    InvalidParams: types.ErrorCode.InvalidParams,
  };
}

/** A JSON-RPC 2.0 message of MCP; the MCP SDK validates it. */
const jsonRpc = z.record(z.string(), z.unknown()).describe("A JSON-RPC 2.0 message of MCP");

/**
 * The MCP route.
 *
 * @returns `POST /svc/mcp`. Other methods answer 405: no server-initiated stream, no sessions.
 */
export function mcpRoute(): Route<AppSide> {
  const tools = new Map<string, McpTool>();
  const toolOf = (entry: Parameters<typeof intentTool>[0]): McpTool => {
    let tool = tools.get(entry.name);
    if (tool === undefined) tools.set(entry.name, tool = intentTool(entry));
    return tool;
  };

  async function serve(req: Request, key: VerifiedKey, { runner, bodyLimit, log }: AppDeps): Promise<Response> {
    const { Server, Transport, ListTools, CallTool, McpError, InvalidParams } =
      await (sdk ??= importSdk().catch((e) => {
        sdk = undefined;
        throw e;
      }));
    const server = new Server({ name: PACKAGE_NAME, version: PACKAGE_VERSION }, {
      capabilities: { tools: { listChanged: false } },
    });
    server.setRequestHandler(ListTools, () => ({
      tools: runner.manifestFor(key).filter((entry) => entry.allowed).map(toolOf),
    }));
    server.setRequestHandler(CallTool, async ({ params }: { params: { name: string; arguments?: unknown } }) => {
      try {
        return toolResult(await runner.run(key, params.name, params.arguments));
      } catch (error) {
        // An unknown tool is a protocol error in MCP; every other refusal is a tool error the model can read.
        if (isSvcError(error) && error.code === "UNKNOWN_INTENT") {
          throw new McpError(InvalidParams, redactSecrets(error.message));
        }
        return toolError(error, log);
      }
    });
    const transport = new Transport({ enableJsonResponse: true, maxRequestBodySize: bodyLimit });
    await server.connect(transport);
    try {
      return await transport.handleRequest(req);
    } finally {
      await server.close();
    }
  }

  return defineRoute({
    method: "POST",
    path: "/svc/mcp",
    auth: "agent",
    limit: "perKey",
    summary: "Model Context Protocol (Streamable HTTP, JSON-RPC): tools/list and tools/call over this key's intents",
    responses: {
      200: jsonRpc.describe("The JSON-RPC response"),
      202: null,
    },
    run: ({ req, caller }, deps) => serve(req, caller, deps),
  });
}
