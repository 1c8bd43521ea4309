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
import { intentTool, type McpTool, type McpToolResult, toolError, toolResult } from "./mcp_tools.ts";
import { answerDirectly, JsonRpcError, type ToolAnswers } from "./mcp_direct.ts";

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
    versions: types.SUPPORTED_PROTOCOL_VERSIONS as readonly string[],
  };
}

/** A JSON-RPC 2.0 message of MCP; the MCP SDK validates it, after `checkToolCalls`. */
const jsonRpcMessage = z.record(z.string(), z.unknown()).describe("A JSON-RPC 2.0 message of MCP");

/** The body: one message or a batch. */
const jsonRpcBody = z.union([jsonRpcMessage, z.array(jsonRpcMessage).min(1)]);

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

  /** Lists the key's tools and runs its calls, for the SDK's server and for `answerDirectly` alike. */
  function answersFor(key: VerifiedKey, { runner, log }: AppDeps): ToolAnswers {
    return {
      listTools: () => runner.manifestFor(key).filter((entry) => entry.allowed).map(toolOf),
      async callTool(name: string, args: unknown): Promise<McpToolResult> {
        try {
          return toolResult(await runner.run(key, name, args));
        } catch (error) {
          // An unknown tool is a protocol error in MCP; every other refusal is a tool error the model can read.
          if (isSvcError(error) && error.code === "UNKNOWN_INTENT") {
            throw new JsonRpcError(INVALID_PARAMS, redactSecrets(error.message), error.details);
          }
          return toolError(error, log);
        }
      },
    };
  }

  const loadSdk = (): Promise<Sdk> =>
    sdk ??= importSdk().catch((e) => {
      sdk = undefined;
      throw e;
    });

  async function transport(req: Request, body: unknown, key: VerifiedKey, deps: AppDeps): Promise<Response> {
    const { Server, Transport, ListTools, CallTool, versions } = await loadSdk();
    const answers = answersFor(key, deps);
    const direct = await answerDirectly(req, body, versions, answers);
    if (direct !== undefined) return direct;
    const server = new Server({ name: PACKAGE_NAME, version: PACKAGE_VERSION }, {
      capabilities: { tools: { listChanged: false } },
    });
    server.setRequestHandler(ListTools, () => ({ tools: answers.listTools() }));
    server.setRequestHandler(
      CallTool,
      ({ params }: { params: { name: string; arguments?: unknown } }) =>
        answers.callTool(params.name, params.arguments),
    );
    const mcp = new Transport({ enableJsonResponse: true, maxRequestBodySize: deps.bodyLimit });
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
