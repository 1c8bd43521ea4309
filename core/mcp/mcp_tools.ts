/**
 * Intents as Model Context Protocol tools: the tool list of a key, a result as
 * a tool result, and a refusal as a tool error a model can read and correct.
 * Plain data, free of the MCP SDK, so the endpoint loads the SDK only when used.
 *
 * @module
 */
import { errorEnvelope } from "../http/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { JsonSchema } from "../contract/mod.ts";
import type { AllowedEntry } from "../intents/mod.ts";

/** A tool as `tools/list` describes it. */
export interface McpTool {
  /** The intent name. */
  name: string;
  /** The intent title. */
  title: string;
  /** The title and the scopes it needs. */
  description: string;
  /** JSON Schema of the arguments: the intent's input, always with `type: "object"` at the root. */
  inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`, when the intent's output is an object. */
  outputSchema?: JsonSchema;
  /** `svc/requiredScopes`: the scopes a call needs, for a client that asks for them before calling. */
  _meta: { [REQUIRED_SCOPES_META]: string[] };
}

/** The `_meta` key of a tool's required scopes. */
export const REQUIRED_SCOPES_META = "svc/requiredScopes";

/** What `tools/call` answers. */
export interface McpToolResult {
  /** One text block: the result (or the error envelope) as JSON. */
  content: { type: "text"; text: string }[];
  /** The result itself, when it is a JSON object. */
  structuredContent?: Record<string, unknown>;
  /** Set when the call was refused or failed. */
  isError?: boolean;
  /** The MCP result type allows more fields. */
  [key: string]: unknown;
}

/**
 * Describes one manifest entry as a tool.
 *
 * @param entry The intent's manifest entry.
 * @returns The tool.
 */
export function intentTool(entry: AllowedEntry): McpTool {
  const scopes = entry.requiredScopes.length ? `Requires scopes: ${entry.requiredScopes.join(", ")}.` : "";
  const tool: McpTool = {
    name: entry.name,
    title: entry.title,
    description: [entry.title, scopes].filter(Boolean).join(". "),
    inputSchema: entry.input.type === "object" ? entry.input : objectRoot(entry.input),
    _meta: { [REQUIRED_SCOPES_META]: [...entry.requiredScopes] },
  };
  if (entry.output.type === "object") tool.outputSchema = entry.output;
  return tool;
}

/** MCP wants `type: "object"` at the root; a union of objects gets it around the original schema. */
function objectRoot(schema: JsonSchema): JsonSchema {
  const { $schema, ...rest } = schema;
  return { ...($schema === undefined ? {} : { $schema }), type: "object", allOf: [rest] };
}

/**
 * Builds the tool result of a successful run.
 *
 * @param result What the intent returned.
 * @returns A text block with the JSON, and `structuredContent` when the result is an object.
 */
export function toolResult(result: unknown): McpToolResult {
  const value = result ?? null;
  const out: McpToolResult = { content: [{ type: "text", text: JSON.stringify(value) }] };
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    out.structuredContent = value as Record<string, unknown>;
  }
  return out;
}

/**
 * Builds the tool error of a refused or failed run: the contract's error
 * envelope as text, so a model sees the code, the message and the issues.
 *
 * @param error What the runner threw.
 * @param log Where the causes of 5xx errors go.
 * @returns A tool result with `isError: true`.
 */
export function toolError(error: unknown, log: ErrorLogger): McpToolResult {
  return { content: [{ type: "text", text: JSON.stringify(errorEnvelope(error, log).body) }], isError: true };
}
