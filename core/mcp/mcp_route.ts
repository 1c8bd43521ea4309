/**
 * `POST /svc/mcp`: the Model Context Protocol over Streamable HTTP, stateless,
 * in revisions 2025-11-25 (and earlier, through the MCP SDK) and 2026-07-28
 * (`mcp_modern.ts`). The dispatcher has checked the agent key; `tools/list`
 * lists the intents this key may call, by name, and `tools/call` runs one
 * through the intent runner, the same chain as `POST /svc/agent/run`. A call
 * an OAuth access token lacks a scope for is the `403` step-up challenge. The
 * MCP SDK is imported on the first legacy request that needs it (one not answered
 * directly, or naming a protocol version), so apps that never see such a request
 * do not load it (nor carry its modules in their heap, which costs every request's
 * garbage collection).
 *
 * @module
 */
import { z } from "zod";
import { isSvcError } from "../errors/mod.ts";
import { redactSecrets } from "../contract/mod.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../contract/mod.ts";
import { json } from "../http/mod.ts";
import type { Answered, Route } from "../http/mod.ts";
import { type AppDeps, type AppSide, defineRoute, mayStepUp, stepUpRefusal } from "../app/routes/mod.ts";
import type { VerifiedKey } from "../keys/mod.ts";
import { checkToolCalls, INVALID_PARAMS } from "./mcp_calls.ts";
import { answerModern, conflictingEra, eraOf, MODERN_ERRORS, MODERN_PROTOCOL_VERSION } from "./mcp_modern.ts";
import { intentTool, type McpTool, type McpToolResult, toolError, toolResult } from "./mcp_tools.ts";
import { answerDirectly, JsonRpcError, type ToolAnswers } from "./mcp_direct.ts";
import { mcpRefusalSchema } from "./mcp_front.ts";
import { PendingApproval } from "../intents/mod.ts";
import {
  APPROVAL_STATUS_TOOL,
  approvalStatusTool,
  elicitationCapabilities,
  pendingToolAnswer,
} from "./mcp_approvals.ts";

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
 * A message `jsonRpcMessage` passes as it is: an object as JSON parses it (its copy would leave out an own
 * `__proto__` key, and nothing else).
 */
const asParsed = (value: unknown): boolean =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype &&
  !Object.hasOwn(value, "__proto__");

/** A body `jsonRpcBody` passes as it is: one such message or a batch of them. */
const jsonRpcBodyAsRead = (read: unknown): boolean =>
  asParsed(read) || (Array.isArray(read) && read.length > 0 && read.every(asParsed));

/**
 * The MCP route.
 *
 * @param options `listTools`: `granted` (default) lists the intents the key may call; `all` lists every intent, a
 * call beyond the grant then meeting the step-up (OAuth) or a `FORBIDDEN_SCOPE` tool error (a pasted key).
 * @returns `POST /svc/mcp`. Other methods answer 405: no server-initiated stream, no sessions.
 */
export function mcpRoute(options: { listTools?: "granted" | "all" } = {}): Route<AppSide> {
  const listed = options.listTools === "all" ? () => true : (entry: { allowed: boolean }) => entry.allowed;
  const tools = new Map<string, McpTool>();
  const capabilities = elicitationCapabilities();
  /** `svc.approval_status`, listed when an intent of the app may wait for approval (its registry never changes). */
  let approvalTools: McpTool[] | undefined;
  /** An intent that may wait for approval has no output schema: its call may answer `pending_approval`. */
  const toolOf = (entry: Parameters<typeof intentTool>[0], deps: AppDeps): McpTool => {
    let tool = tools.get(entry.name);
    if (tool === undefined) {
      tool = intentTool(entry);
      if (deps.intents.get(entry.name)?.approval) delete tool.outputSchema;
      tools.set(entry.name, tool);
    }
    return tool;
  };

  /**
   * Lists the key's tools (by name) and runs its calls, for the SDK's server, `answerDirectly` and `answerModern`
   * alike. A scope refusal that is a step-up (an OAuth access token) is kept in `stepUp`: the request then answers
   * its `403`, whatever else it held.
   */
  function answersFor(
    req: Request,
    key: VerifiedKey,
    deps: AppDeps,
    urlElicitation: boolean,
  ): ToolAnswers & { stepUp?: unknown } {
    const { runner, log, activity } = deps;
    const approvals = approvalTools ??= [...deps.intents.values()].some((i) => i.approval !== null)
      ? [approvalStatusTool]
      : [];
    const answers: ToolAnswers & { stepUp?: unknown } = {
      listTools: () =>
        [...runner.manifestFor(key).filter(listed).map((entry) => toolOf(entry, deps)), ...approvals].sort(byName),
      async callTool(name: string, args: unknown): Promise<McpToolResult> {
        const started = activity.elapsed();
        /** The call's activity record: the status the same answer has over HTTP. */
        const record = (status: number, error?: unknown, approvalId?: string): void =>
          activity.record({
            key,
            intent: name,
            via: "mcp",
            status,
            ms: activity.elapsed() - started,
            ...isSvcError(error) ? { code: error.code } : {},
            ...approvalId === undefined ? {} : { approvalId },
          });
        try {
          if (name === APPROVAL_STATUS_TOOL && approvals.length) {
            const approvalId = (args as { approvalId?: unknown } | undefined)?.approvalId;
            if (typeof approvalId !== "string" || approvalId.length === 0 || approvalId.length > 200) {
              throw new JsonRpcError(INVALID_PARAMS, "Invalid params: approvalId must be a string");
            }
            return toolResult(await deps.approvals.forAgent(key, approvalId, 0, req.signal));
          }
          const result = await runner.run(key, name, args);
          if (result instanceof PendingApproval) {
            record(202, undefined, result.approvalId);
            return pendingToolAnswer(result, req, urlElicitation);
          }
          record(200);
          return toolResult(result);
        } catch (error) {
          if (error instanceof JsonRpcError) throw error;
          record(isSvcError(error) ? error.status : 500, error);
          // An unknown tool is a protocol error in MCP; every other refusal is a tool error the model can read.
          if (isSvcError(error) && error.code === "UNKNOWN_INTENT") {
            throw new JsonRpcError(INVALID_PARAMS, redactSecrets(error.message), error.details);
          }
          if (mayStepUp(error, name, deps)) {
            const stepUp = await stepUpRefusal(error, req, key, name, deps);
            if (stepUp !== error) answers.stepUp ??= stepUp;
          }
          return toolError(error, log);
        }
      },
    };
    return answers;
  }

  let versions: readonly string[] | undefined;
  /** The modern revision first, then the SDK's (loaded once, for the lists of `server/discover` and `-32022`). */
  const supportedVersions = async (): Promise<readonly string[]> =>
    versions ??= [MODERN_PROTOCOL_VERSION, ...(await loadSdk()).versions];

  /** The SDK once loaded: a call answered directly then waits for nothing else. */
  let loaded: Sdk | undefined;
  const loadSdk = (): Promise<Sdk> =>
    sdk ??= importSdk().catch((e) => {
      sdk = undefined;
      throw e;
    });

  async function transport(
    req: Request,
    body: unknown,
    key: VerifiedKey,
    deps: AppDeps,
    era: "legacy" | "modern",
  ): Promise<Response> {
    const answers = answersFor(req, key, deps, capabilities.declared(key.id, body));
    const answered = await answer(req, body, answers, deps, era);
    if (answers.stepUp !== undefined) throw answers.stepUp;
    return answered;
  }

  /** The answer in the request's revision: 2026-07-28's, else directly when the SDK would answer the same, else the SDK's. */
  function answer(
    req: Request,
    body: unknown,
    answers: ToolAnswers,
    deps: AppDeps,
    era: "legacy" | "modern",
  ): Promise<Response> {
    if (era === "modern") return answerInModern(req, body, answers);
    const sdk = loaded;
    // Before the SDK is loaded, a request naming no protocol version (the SDK's list) may still be answered directly.
    if (sdk === undefined && req.headers.get("mcp-protocol-version") !== null) {
      return answerOnceLoaded(req, body, answers, deps);
    }
    const direct = answerDirectly(req, body, sdk?.versions ?? [], answers);
    if (direct !== undefined) return direct;
    return sdk === undefined ? answerOnceLoaded(req, body, answers, deps) : answerBySdk(req, body, answers, deps, sdk);
  }

  async function answerOnceLoaded(req: Request, body: unknown, answers: ToolAnswers, deps: AppDeps): Promise<Response> {
    loaded = await loadSdk();
    return await answer(req, body, answers, deps, "legacy");
  }

  async function answerInModern(req: Request, body: unknown, answers: ToolAnswers): Promise<Response> {
    return await answerModern(req, body, await supportedVersions(), answers);
  }

  async function answerBySdk(
    req: Request,
    body: unknown,
    answers: ToolAnswers,
    deps: AppDeps,
    { Server, Transport, ListTools, CallTool }: Sdk,
  ): Promise<Response> {
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

  /**
   * Checks every call, takes a token per call beyond the first, and answers the refused calls beside the rest. A
   * request without a refused call is answered by `transport` itself, through no other promise.
   */
  function serve(
    { req, caller, body, takeToken }: { req: Request; caller: VerifiedKey; body: unknown; takeToken(): void },
    deps: AppDeps,
  ): Promise<Response> {
    // A 2026-07-28 request is one message, checked (headers first) by answerModern.
    const era = eraOf(req, body);
    if (era === "conflict") return Promise.resolve(conflictingEra(body));
    if (era === "modern") return transport(req, body, caller, deps, era);
    const batch = Array.isArray(body);
    const { calls, passed, refused } = checkToolCalls(batch ? body : [body as Record<string, unknown>]);
    for (let call = 1; call < calls; call++) takeToken();
    if (refused.length === 0) return transport(req, body, caller, deps, era);
    if (passed.length === 0) return Promise.resolve(json(batch ? refused : refused[0]));
    return withRefused(transport(req, passed, caller, deps, era), refused);
  }

  return defineRoute({
    method: "POST",
    path: "/svc/mcp",
    auth: "agent",
    limit: "perKey",
    summary:
      "Model Context Protocol 2025-11-25 and 2026-07-28 (Streamable HTTP, JSON-RPC): tools/list and tools/call over " +
      "this key's intents",
    body: jsonRpcBody,
    takesBodyAsRead: jsonRpcBodyAsRead,
    responses: {
      200: z.union([jsonRpcMessage, z.array(jsonRpcMessage)]).describe("The JSON-RPC response (or batch of them)"),
      202: null,
      400: jsonRpcMessage.describe(
        "A JSON-RPC error: parse error (-32700), invalid request (-32600), header mismatch (-32020) or unsupported " +
          "protocol version (-32022)",
      ),
      401: mcpRefusalSchema.describe(
        "No valid agent key (error.data.code UNAUTHORIZED), as a JSON-RPC error -32001; WWW-Authenticate points to " +
          "the resource metadata when OAuth is on",
      ),
      403: mcpRefusalSchema.describe(
        "FORBIDDEN_SCOPE for an OAuth access token (-32003): WWW-Authenticate names the scopes to authorize again " +
          "with; also an Origin or Host outside the app's origins",
      ),
      429: mcpRefusalSchema.describe("RATE_LIMITED (-32029), Retry-After set"),
      404: jsonRpcMessage.describe("A JSON-RPC error -32601: a method of the 2026-07-28 revision this server lacks"),
      406: jsonRpcMessage.describe("A JSON-RPC error: the client must accept application/json and text/event-stream"),
    },
    bodyRefusal: jsonRpcBodyRefusal,
    run: serve,
    answered: recordRateRefusal,
  });
}

/** The answers to a batch's passed messages, with the answers to its refused calls after them. */
async function withRefused(answering: Promise<Response>, refused: readonly unknown[]): Promise<Response> {
  const answered = await answering;
  if (answered.status === 202) return json(refused);
  if (answered.status !== 200) return answered;
  const answers = await answered.json() as unknown;
  return json([...(Array.isArray(answers) ? answers : [answers]), ...refused]);
}

/**
 * A request the key's rate limit refused before its body was read is one activity record (intent `(unknown)`); every
 * call that was read is recorded by `callTool`.
 */
function recordRateRefusal(
  { caller, json: sent, error, response, ms }: Answered<VerifiedKey>,
  { activity }: AppDeps,
): void {
  if (sent !== undefined || !isSvcError(error) || error.code !== "RATE_LIMITED") return;
  activity.record({ key: caller, intent: undefined, via: "mcp", status: response.status, code: error.code, ms });
}

const byName = (a: McpTool, b: McpTool): number => a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/**
 * A JSON body that does not parse is JSON-RPC's parse error (`-32700`); one that is no JSON-RPC message, `-32600`.
 * A body that is not sent as JSON at all keeps the contract's `INVALID_JSON`, as too large a body keeps its 413.
 */
function jsonRpcBodyRefusal(error: unknown, req: Request): Response | undefined {
  if (!isSvcError(error) || !/^application\/json\s*(;|$)/i.test(req.headers.get("content-type") ?? "")) {
    return undefined;
  }
  const [code, message] = error.code === "INVALID_JSON"
    ? [PARSE_ERROR, `Parse error: ${error.message}`]
    : error.code === "VALIDATION_ERROR"
    ? [MODERN_ERRORS.invalidRequest, "Invalid request: the body must be a JSON-RPC message or a batch of them"]
    : [undefined, ""];
  if (code === undefined) return undefined;
  return json({ jsonrpc: "2.0", id: null, error: { code, message } }, 400);
}

/** JSON-RPC's code for a body that is not JSON. */
const PARSE_ERROR = -32700;
