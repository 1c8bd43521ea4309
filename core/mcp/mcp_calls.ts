/**
 * The checks `POST /svc/mcp` makes before the MCP SDK sees a message: each
 * `tools/call` passes the body schema of `POST /svc/agent/run` (a tool name of
 * 1..200 well-formed characters without NUL, arguments an object nested at
 * most `MAX_PAYLOAD_DEPTH` deep), or is answered with a JSON-RPC error
 * `-32602` and a short message, without reaching the intent runner.
 *
 * @module
 */
import { z } from "zod";
import { toIssues } from "../http/mod.ts";
import { runBody } from "../app/routes/mod.ts";

/** JSON-RPC's code for invalid method parameters. */
export const INVALID_PARAMS = -32602;

/** A JSON-RPC error response. */
export interface JsonRpcErrorResponse {
  /** Always `"2.0"`. */
  jsonrpc: "2.0";
  /** The id of the request it answers. */
  id: string | number;
  /** The code and a short message. */
  error: { code: number; message: string };
}

/** A message of a JSON-RPC body, as far as these checks need to know it. */
type Message = Record<string, unknown>;

/** The arguments of a call are an object, when given (MCP's `arguments`). */
const callParams = z.object({ name: z.unknown(), arguments: z.record(z.string(), z.unknown()).optional() });

/** What a body's `tools/call` messages come to. */
export interface CallCheck {
  /** How many `tools/call` requests the body holds: each takes a rate-limit token. */
  calls: number;
  /** The messages to hand to the MCP SDK. */
  passed: Message[];
  /** The answers to the refused calls. */
  refused: JsonRpcErrorResponse[];
}

/**
 * Checks every `tools/call` of a JSON-RPC body, one message or a batch.
 *
 * @param messages The body's messages.
 * @returns The count of calls, the messages that passed and the answers to the refused ones.
 */
export function checkToolCalls(messages: readonly Message[]): CallCheck {
  const check: CallCheck = { calls: 0, passed: [], refused: [] };
  for (const message of messages) {
    if (message.method !== "tools/call") {
      check.passed.push(message);
      continue;
    }
    check.calls++;
    const problem = paramsProblem(message.params);
    if (problem === undefined) check.passed.push(message);
    else if (typeof message.id === "string" || typeof message.id === "number") {
      check.refused.push(invalidParams(message.id, problem));
    }
  }
  return check;
}

/**
 * Builds the JSON-RPC answer to a call with invalid parameters.
 *
 * @param id The request's id.
 * @param message A short account of what is wrong, without any prefix.
 * @returns The error response.
 */
export function invalidParams(id: string | number, message: string): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: { code: INVALID_PARAMS, message } };
}

function paramsProblem(params: unknown): string | undefined {
  const run = plainParams(params)
    // What `callParams` passes as it is: the run body's checks alone, without the copy of the arguments it makes.
    ? runBody.safeParse({ intent: params.name, payload: params.arguments })
    : callParamsThenRunBody(params);
  if (run.success) return undefined;
  const [first] = toIssues(run.error.issues);
  const path = first.path.replace(/^intent\b/, "name").replace(/^payload\b/, "arguments");
  return `Invalid tools/call params: ${path || "params"}: ${first.message}`;
}

function callParamsThenRunBody(params: unknown) {
  const shape = callParams.safeParse(params ?? {});
  return shape.success ? runBody.safeParse({ intent: shape.data.name, payload: shape.data.arguments }) : shape;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Params `callParams` passes unchanged: an object whose arguments, when given, are a parsed JSON object (zod's plain
 * object) without an own `__proto__` (the one key its copy of a record leaves out, so the depth checked differs).
 */
function plainParams(params: unknown): params is { name: unknown; arguments?: Record<string, unknown> } {
  if (!isObject(params)) return false;
  const args = params.arguments;
  return args === undefined || (isObject(args) && Object.getPrototypeOf(args) === Object.prototype &&
    !Object.hasOwn(args, "__proto__"));
}
