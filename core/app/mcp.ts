/**
 * `POST /svc/mcp`: the Model Context Protocol over Streamable HTTP, stateless.
 * The dispatcher has checked the agent key; `tools/list` lists the intents this
 * key may call and `tools/call` runs one through the intent runner, the same
 * chain as `POST /svc/agent/run`. The MCP SDK is imported on the first request,
 * so apps that never see an MCP client do not load it.
 *
 * @module
 */
import type { ErrorLogger } from "../http/json.ts";
import type { IntentRunner } from "./intent_runner.ts";
import type { VerifiedKey } from "./key_service.ts";
import { intentTool, type McpTool, toolError, toolResult } from "./mcp_tools.ts";
import { type SvcRoute, svcRoute } from "../http/route.ts";
import { isSvcError } from "../contract/errors.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../contract/version.ts";

/** What the endpoint needs from `createSvc`. */
export interface McpOptions {
  /** Lists and runs intents. */
  runner: IntentRunner;
  /** Largest request body in bytes. */
  bodyLimit: number;
  /** Where causes of failed calls go. */
  log: ErrorLogger;
}

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

/**
 * The MCP route.
 *
 * @param options The runner, the body limit and the logger.
 * @returns `POST /svc/mcp`. Other methods answer 405: no server-initiated stream, no sessions.
 */
export function mcpRoutes(options: McpOptions): SvcRoute[] {
  const { runner, bodyLimit, log } = options;
  const tools = new Map<string, McpTool>();
  const toolOf = (entry: Parameters<typeof intentTool>[0]): McpTool => {
    let tool = tools.get(entry.name);
    if (tool === undefined) tools.set(entry.name, tool = intentTool(entry));
    return tool;
  };

  async function serve(req: Request, key: VerifiedKey): Promise<Response> {
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
        if (isSvcError(error) && error.code === "UNKNOWN_INTENT") throw new McpError(InvalidParams, error.message);
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

  return [
    svcRoute({
      method: "POST",
      path: "/svc/mcp",
      auth: "agent",
      summary: "Model Context Protocol (Streamable HTTP, JSON-RPC): tools/list and tools/call over this key's intents",
      rateLimited: true,
      run: ({ req, key }) => serve(req, key),
    }),
  ];
}
