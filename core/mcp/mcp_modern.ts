/**
 * MCP 2026-07-28 ("modern") requests at `/svc/mcp`, beside the 2025-11-25 ones the MCP SDK answers: no session and
 * no `initialize`, each request carrying its protocol version and the client's capabilities in `params._meta`
 * (`io.modelcontextprotocol/protocolVersion`, `io.modelcontextprotocol/clientCapabilities`), mirrored in the
 * `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers, which must match the body (else `400` and
 * `-32020` HeaderMismatch). `server/discover`, `tools/list` (by name) and `tools/call` are answered here, without
 * the SDK; any other method is `404` and `-32601`. Every result carries `resultType: "complete"`.
 *
 * @module
 */
import { PACKAGE_NAME, PACKAGE_VERSION, redactSecrets } from "../contract/mod.ts";
import { json } from "../http/mod.ts";
import { checkToolCalls, INVALID_PARAMS, type JsonRpcErrorResponse } from "./mcp_calls.ts";
import type { ToolAnswers } from "./mcp_direct.ts";

/** The modern revision this endpoint speaks. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** The `_meta` key of a request's protocol version. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

/** The `_meta` key of the client's capabilities for one request. */
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

/** JSON-RPC error codes of the modern revision (its schema's `HEADER_MISMATCH`, `UNSUPPORTED_PROTOCOL_VERSION`). */
export const MODERN_ERRORS = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  internalError: -32603,
  headerMismatch: -32020,
  unsupportedProtocolVersion: -32022,
} as const;

/** How long a client may keep `tools/list` and `server/discover` answers, in milliseconds. */
const TTL_MS = 60_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Which revision a request is served in, or `conflict` when what it sends names both. */
export type McpEra = "legacy" | "modern" | "conflict";

/**
 * The revision a request asks for, from what it sends (the versioning page's dual-era server), never from a
 * header's mere presence: an `initialize` (alone or in a batch) is 2025-11-25 whatever the headers say; an
 * `MCP-Protocol-Version` of 2025-11-25 or older is 2025-11-25 too, unless the body's `_meta` names the modern
 * revision (then `conflict`: a `400` HeaderMismatch); a protocol version in `_meta`, a `server/discover`, or an
 * `MCP-Protocol-Version` of 2026-07-28 or later is the modern revision. Anything else (no version anywhere, as a
 * legacy client's first requests) is 2025-11-25. `Mcp-Method` alone decides nothing: mcp-remote 0.15.1 sends it on
 * its 2025-11-25 `initialize`.
 *
 * @param req The request.
 * @param body The parsed body.
 * @returns `legacy`, `modern` or `conflict`.
 *
 * @example An initialize with an Mcp-Method header is legacy
 * ```ts
 * import { eraOf } from "./mcp_modern.ts";
 * const req = new Request("https://app.example.com/svc/mcp", { method: "POST", headers: { "mcp-method": "initialize" } });
 * eraOf(req, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }); // "legacy"
 * ```
 */
export function eraOf(req: Request, body: unknown): McpEra {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.some((m) => isObject(m) && m.method === "initialize")) return "legacy";
  const header = req.headers.get("mcp-protocol-version");
  const metaVersion = isObject(body) && isObject(body.params) && isObject(body.params._meta)
    ? body.params._meta[META_PROTOCOL_VERSION]
    : undefined;
  const legacyHeader = header !== null && isLegacyVersion(header);
  if (legacyHeader) return typeof metaVersion === "string" && !isLegacyVersion(metaVersion) ? "conflict" : "legacy";
  if (metaVersion !== undefined) return "modern";
  if (isObject(body) && body.method === "server/discover") return "modern";
  return header !== null && /^\d{4}-\d{2}-\d{2}$/.test(header) ? "modern" : "legacy";
}

/** Whether a protocol version is of the handshake revisions (2025-11-25 or older, or not a date at all). */
const isLegacyVersion = (version: string): boolean =>
  !/^\d{4}-\d{2}-\d{2}$/.test(version) || version < MODERN_PROTOCOL_VERSION;

/**
 * The answer to a request whose signals name both revisions (`eraOf` says `conflict`): `400` and `-32020`.
 *
 * @param body The parsed body (its id is echoed when it has one).
 * @returns The JSON-RPC error response.
 */
export function conflictingEra(body: unknown): Response {
  const id = isObject(body) && (typeof body.id === "string" || typeof body.id === "number") ? body.id : null;
  return refuse(id, {
    status: 400,
    code: MODERN_ERRORS.headerMismatch,
    message: "Header mismatch: MCP-Protocol-Version names a 2025-11-25 (or older) revision but _meta names " +
      `${MODERN_PROTOCOL_VERSION}; send one revision`,
  });
}

/** A refusal: its HTTP status and JSON-RPC error. */
type Refusal = { status: number; code: number; message: string; data?: unknown };

/**
 * Answers a modern request.
 *
 * @param req The request (its headers are checked against the body).
 * @param body The parsed body.
 * @param supported Every protocol version the endpoint speaks, the modern one first.
 * @param answers What lists the key's tools and runs a call.
 * @returns The response.
 *
 * @example Answer a request at the route
 * ```ts ignore
 * if (eraOf(req, body) === "modern") return await answerModern(req, body, versions, answers);
 * ```
 */
export async function answerModern(
  req: Request,
  body: unknown,
  supported: readonly string[],
  answers: ToolAnswers,
): Promise<Response> {
  if (!isObject(body) || body.jsonrpc !== "2.0" || typeof body.method !== "string") {
    return refuse(null, {
      status: 400,
      code: MODERN_ERRORS.invalidRequest,
      message: "Invalid request: the body must be one JSON-RPC 2.0 request (no batches in 2026-07-28)",
    });
  }
  const id = typeof body.id === "string" || typeof body.id === "number" ? body.id : null;
  if (!("id" in body)) return new Response(null, { status: 202 }); // a notification: nothing to answer
  if (id === null) {
    return refuse(null, {
      status: 400,
      code: MODERN_ERRORS.invalidRequest,
      message: "Invalid request: id must be a string or a number",
    });
  }
  const params = isObject(body.params) ? body.params : {};
  const problem = headerProblem(req, body.method, params, supported);
  if (problem !== undefined) return refuse(id, problem);
  if (body.method === "server/discover") {
    return result(id, {
      supportedVersions: [...supported],
      capabilities: { tools: { listChanged: false } },
      ttlMs: TTL_MS,
      cacheScope: "public",
    });
  }
  if (body.method === "tools/list") {
    return result(id, { tools: answers.listTools(), ttlMs: TTL_MS, cacheScope: "private" });
  }
  if (body.method !== "tools/call") {
    const method = clip(redactSecrets(body.method));
    return refuse(id, { status: 404, code: MODERN_ERRORS.methodNotFound, message: `Method not found: ${method}` });
  }
  const { refused } = checkToolCalls([body]);
  if (refused.length) return json(refused[0]);
  try {
    return result(id, await answers.callTool(params.name as string, params.arguments));
  } catch (error) {
    const { code, message, data } = error as { code?: unknown; message?: string; data?: unknown };
    const known = typeof code === "number" && Number.isSafeInteger(code);
    // A JsonRpcError (an unknown tool) as it is; anything else a bare internal error, its cause not sent.
    if (!known) return refuse(id, { status: 200, code: MODERN_ERRORS.internalError, message: "Internal error" });
    return refuse(id, { status: 200, code, message: String(message), data });
  }
}

/** What is wrong with the request's headers and `_meta`, in the order the revision lists them. */
function headerProblem(
  req: Request,
  method: string,
  params: Record<string, unknown>,
  supported: readonly string[],
): Refusal | undefined {
  const mismatch = (message: string): Refusal => ({ status: 400, code: MODERN_ERRORS.headerMismatch, message });
  const version = req.headers.get("mcp-protocol-version");
  if (version === null) return mismatch("Header mismatch: the MCP-Protocol-Version header is required");
  const methodHeader = req.headers.get("mcp-method");
  if (methodHeader === null) return mismatch("Header mismatch: the Mcp-Method header is required");
  if (methodHeader !== method) {
    return mismatch(
      `Header mismatch: Mcp-Method header value '${clip(redactSecrets(methodHeader))}' does not match body value '${
        clip(redactSecrets(method))
      }'`,
    );
  }
  if (method === "tools/call") {
    const nameHeader = req.headers.get("mcp-name");
    if (nameHeader === null) return mismatch("Header mismatch: the Mcp-Name header is required for tools/call");
    const name = decodeHeaderValue(nameHeader);
    if (name === undefined || name !== params.name) {
      return mismatch("Header mismatch: the Mcp-Name header does not match params.name");
    }
  }
  const meta = isObject(params._meta) ? params._meta : {};
  const metaVersion = meta[META_PROTOCOL_VERSION];
  if (typeof metaVersion !== "string") {
    return {
      status: 400,
      code: INVALID_PARAMS,
      message: `Invalid params: _meta["${META_PROTOCOL_VERSION}"] is required`,
    };
  }
  if (metaVersion !== version) {
    return mismatch("Header mismatch: MCP-Protocol-Version does not match the protocol version in _meta");
  }
  if (version !== MODERN_PROTOCOL_VERSION) {
    return {
      status: 400,
      code: MODERN_ERRORS.unsupportedProtocolVersion,
      message: "Unsupported protocol version",
      data: { supported: [...supported], requested: clip(redactSecrets(version)) },
    };
  }
  if (!isObject(meta[META_CLIENT_CAPABILITIES])) {
    return {
      status: 400,
      code: INVALID_PARAMS,
      message: `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] must be an object`,
    };
  }
  return undefined;
}

/** A header value as sent, or its Base64 sentinel form (`=?base64?…?=`) decoded; `undefined` when that fails. */
function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/.exec(value);
  if (sentinel === null) return value;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(sentinel[1]), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** A caller's text echoed in a message, bounded. */
const clip = (text: string): string => text.length > 100 ? text.slice(0, 100) + "…" : text;

function result(id: string | number | null, value: Record<string, unknown>): Response {
  return json({
    jsonrpc: "2.0",
    id,
    result: {
      ...value,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: PACKAGE_NAME, version: PACKAGE_VERSION } },
    },
  });
}

function refuse(id: string | number | null, { status, code, message, data }: Refusal): Response {
  const error: JsonRpcErrorResponse["error"] & { data?: unknown } = { code, message };
  if (data !== undefined) error.data = data;
  return json({ jsonrpc: "2.0", ...(id === null ? {} : { id }), error }, status);
}
