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
import { isSvcError } from "../../errors/mod.ts";
import { redactSecrets } from "../../contract/mod.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../contract/mod.ts";
import { json } from "../../http/mod.ts";
import type { Route } from "../../http/mod.ts";
import { type AppDeps, type AppSide, defineRoute } from "../routes/mod.ts";
import type { VerifiedKey } from "../../keys/mod.ts";
import { checkToolCalls, INVALID_PARAMS } from "./mcp_calls.ts";
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
  };
}

/** A JSON-RPC 2.0 message of MCP; the MCP SDK validates it, after `checkToolCalls`. */
const jsonRpcMessage = z.record(z.string(), z.unknown()).describe("A JSON-RPC 2.0 message of MCP");

/** The body: one message or a batch. */
const jsonRpcBody = z.union([jsonRpcMessage, z.array(jsonRpcMessage).min(1)]);

/** A JSON-RPC error raised in a handler: the SDK sends its code and message as they are, with no prefix. */
class JsonRpcError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

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

  async function transport(req: Request, body: unknown, key: VerifiedKey, deps: AppDeps): Promise<Response> {
    const { runner, bodyLimit, log } = deps;
    const { Server, Transport, ListTools, CallTool } = await (sdk ??= importSdk().catch((e) => {
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
          throw new JsonRpcError(INVALID_PARAMS, redactSecrets(error.message), error.details);
        }
        return toolError(error, log);
      }
    });
    const mcp = new Transport({ enableJsonResponse: true, maxRequestBodySize: bodyLimit });
    await server.connect(mcp);
    try {
      return await mcp.handleRequest(req, { parsedBody: body });
    } finally {
      await server.close();
    }
  }

  /** Checks every call, takes a token per call beyond the first, and answers the refused calls beside the rest. */
  async function serve(
    { req, caller, body, takeToken }: { req: Request; caller: VerifiedKey; body: unknown; takeToken(): void },
    deps: AppDeps,
  ): Promise<Response> {
    const batch = Array.isArray(body);
    const { calls, passed, refused } = checkToolCalls(batch ? body : [body as Record<string, unknown>]);
    for (let call = 1; call < calls; call++) takeToken();
    if (refused.length === 0) return await transport(req, body, caller, deps);
    if (passed.length === 0) return json(batch ? refused : refused[0]);
    const answered = await transport(req, passed, caller, deps);
    if (answered.status === 202) return json(refused);
    if (answered.status !== 200) return answered;
    const answers = await answered.json() as unknown;
    return json([...(Array.isArray(answers) ? answers : [answers]), ...refused]);
  }

  return defineRoute({
    method: "POST",
    path: "/svc/mcp",
    auth: "agent",
    limit: "perKey",
    summary: "Model Context Protocol (Streamable HTTP, JSON-RPC): tools/list and tools/call over this key's intents",
    body: jsonRpcBody,
    responses: {
      200: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]).describe("The JSON-RPC response (or batch of them)"),
      202: null,
      406: jsonRpcMessage.describe("A JSON-RPC error: the client must accept application/json and text/event-stream"),
    },
    run: serve,
  });
}
