/**
 * The two requests an MCP client sends on every turn, `tools/list` and
 * `tools/call`, answered without building an MCP SDK server and transport:
 * only when the request is one the SDK would take as it is (the headers it
 * checks, one strict JSON-RPC request, parameters its schemas pass unchanged),
 * with the body, status and headers the SDK answers. Anything else (initialize,
 * ping, notifications, batches, odd headers or fields) goes to the SDK.
 *
 * @module
 */
import { json } from "../http/mod.ts";
import type { McpTool, McpToolResult } from "./mcp_tools.ts";

/** A JSON-RPC error raised while answering: the SDK sends its code and message as they are, with no prefix. */
export class JsonRpcError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  /** Sent as `error.data` when defined. */
  readonly data?: unknown;
  /**
   * Builds the error.
   *
   * @param code The JSON-RPC error code.
   * @param message The message, sent as it is.
   * @param data Sent as `error.data` when defined.
   */
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** What answers the two requests: the tools of the caller, and one call. */
export interface ToolAnswers {
  /** The tools the key may call. */
  listTools(): McpTool[];
  /** Runs one tool: its tool result, or throws a `JsonRpcError`. */
  callTool(name: string, args: unknown): Promise<McpToolResult>;
}

/** JSON-RPC's code for an error the handler did not classify, as the SDK answers it. */
const INTERNAL_ERROR = -32603;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The fields of a strict JSON-RPC request (the SDK's `JSONRPCRequestSchema` refuses any other). */
const REQUEST_FIELDS = new Set(["jsonrpc", "id", "method", "params"]);

function onlyFields(value: Record<string, unknown>, fields: ReadonlySet<string>): boolean {
  for (const field in value) if (!fields.has(field)) return false;
  return true;
}

const CALL_FIELDS = new Set(["name", "arguments"]);
const NO_FIELDS = new Set<string>();

/** Whether the SDK's transport would pass these headers on to the server unchanged, in a stateless JSON answer. */
function plainHeaders(req: Request, versions: readonly string[]): boolean {
  const accept = req.headers.get("accept");
  if (accept === null || !accept.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (req.headers.get("content-type") !== "application/json") return false;
  const version = req.headers.get("mcp-protocol-version");
  return version === null || versions.includes(version);
}

/** Whether the message is a request the SDK's schemas would take as it is, for one of the two methods. */
function plainRequest(message: Record<string, unknown>): boolean {
  if (message.jsonrpc !== "2.0" || !onlyFields(message, REQUEST_FIELDS)) return false;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  if (message.method === "tools/list") {
    return params === undefined || (isPlainObject(params) && onlyFields(params, NO_FIELDS));
  }
  if (message.method !== "tools/call" || !isPlainObject(params) || !onlyFields(params, CALL_FIELDS)) return false;
  return typeof params.name === "string" && (params.arguments === undefined || isPlainObject(params.arguments));
}

/**
 * Answers a `tools/list` or `tools/call` request directly when the SDK would answer it the same way.
 *
 * @param req The HTTP request (its headers are checked as the SDK's transport checks them).
 * @param body The parsed body, after the checks of `checkToolCalls`.
 * @param versions The protocol versions the SDK supports.
 * @param answers What lists the tools and runs a call.
 * @returns The response (decided at once: `undefined` when the SDK must answer).
 */
export function answerDirectly(
  req: Request,
  body: unknown,
  versions: readonly string[],
  answers: ToolAnswers,
): Promise<Response> | undefined {
  if (!isPlainObject(body) || !plainRequest(body) || !plainHeaders(req, versions)) return undefined;
  return answerPlain(body, answers);
}

/** The answer to a plain `tools/list` or `tools/call`. */
async function answerPlain(body: Record<string, unknown>, answers: ToolAnswers): Promise<Response> {
  const id = body.id;
  let answer: Record<string, unknown>;
  try {
    const result = body.method === "tools/list" ? { tools: answers.listTools() } : await answers.callTool(
      (body.params as { name: string }).name,
      (body.params as { arguments?: unknown }).arguments,
    );
    answer = { result, jsonrpc: "2.0", id };
  } catch (error) {
    answer = { jsonrpc: "2.0", id, error: errorOf(error) };
  }
  return json(answer);
}

/** The JSON-RPC error of a thrown value, as the SDK's protocol builds it. */
function errorOf(error: unknown): { code: number; message: string; data?: unknown } {
  const { code, message, data } = (error ?? {}) as { code?: unknown; message?: string; data?: unknown };
  const out: { code: number; message: string; data?: unknown } = {
    code: Number.isSafeInteger(code) ? code as number : INTERNAL_ERROR,
    message: message ?? "Internal error",
  };
  if (data !== undefined) out.data = data;
  return out;
}
