/**
 * What stands in front of `/svc/mcp` and the OAuth routes, outside every other handler: the `Origin` and `Host`
 * checks (MCP 2025-11-25 transports: servers MUST validate `Origin`, the DNS-rebinding defence), and the JSON-RPC
 * body of the `401`, `403` and `429` answers of `/svc/mcp`, so an MCP client shows the user a message it can read
 * (the status and `WWW-Authenticate` stay as they are: clients act on those).
 *
 * @module
 */
import { z } from "zod";
import { json } from "../http/mod.ts";
import { pathnameOf } from "../http/mod.ts";

/** Whom the MCP and OAuth routes serve. */
export interface McpFrontOptions {
  /** The app's public origin (`oauth.publicUrl`), when set. */
  publicUrl?: string;
  /** `mcp.allowedOrigins`. */
  allowedOrigins?: readonly string[];
  /** Whether `path` is an OAuth route or discovery URL of the app (checked like `/svc/mcp`). */
  isOAuthPath(path: string): boolean;
}

/**
 * The body of a `401`, `403` or `429` at `/svc/mcp`: a JSON-RPC error whose message the client shows its user, and
 * whose `data` holds the contract's error (absent for a refused `Origin` or `Host`, answered before any route).
 */
export const mcpRefusalSchema: z.ZodType<{
  jsonrpc: "2.0";
  id: null;
  error: { code: number; message: string; data?: { code: string; message: string; details?: unknown } };
}> = z.strictObject({
  jsonrpc: z.literal("2.0"),
  id: z.null(),
  error: z.strictObject({
    code: z.number().int(),
    message: z.string(),
    data: z.strictObject({ code: z.string(), message: z.string(), details: z.unknown().optional() }).optional(),
  }),
}).describe("A JSON-RPC error: what the user reads in error.message, the contract's error in error.data");

/** The JSON-RPC error codes of the refusals at `/svc/mcp` (implementation-defined server errors, -32000..-32099). */
export const MCP_REFUSAL_CODES = { 401: -32001, 403: -32003, 429: -32029 } as const;

const LOOPBACK_HOST = /^(localhost|[^.]+\.localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/**
 * Whether an origin is on the loopback interface: `localhost` (and its subdomains), `127.0.0.0/8`, `[::1]`.
 *
 * @param origin An origin or URL.
 * @returns `true` for a loopback origin.
 *
 * @example Loopback or not
 * ```ts
 * import { isLoopbackOrigin } from "./mcp_front.ts";
 * isLoopbackOrigin("http://127.0.0.1:8000"); // true
 * isLoopbackOrigin("http://evil.example.com"); // false
 * ```
 */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOST.test(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * Puts the checks in front of a handler: a request to `/svc/mcp` or an OAuth path whose `Origin` is not one of the
 * app's origins (`publicUrl`, `allowedOrigins`; with neither, any loopback origin, and on the OAuth routes the
 * request's own origin) is `403`, and so is one whose
 * `Host` is not one of those origins' hosts (checked only when origins are configured: without them the app does
 * not know its own name, and a reverse proxy may rewrite `Host`). A request without `Origin` (a non-browser
 * client) passes. Then `/svc/mcp`'s `401`, `403` and `429` carry a JSON-RPC error.
 *
 * @param handle The handler (the `/svc` handler with the OAuth server in front).
 * @param options The app's origins and its OAuth paths.
 * @returns The guarded handler.
 *
 * @example What createSvc does
 * ```ts ignore
 * const served = withMcpFront(handle, { publicUrl, allowedOrigins, isOAuthPath });
 * ```
 */
export function withMcpFront(
  handle: (req: Request) => Promise<Response>,
  options: McpFrontOptions,
): (req: Request) => Promise<Response> {
  const origins = new Set(
    [...(options.publicUrl === undefined ? [] : [options.publicUrl]), ...(options.allowedOrigins ?? [])]
      .map((url) => new URL(url).origin),
  );
  const hosts = new Set([...origins].map((origin) => new URL(origin).host));
  const guarded = async (req: Request, mcp: boolean): Promise<Response> => {
    const refusal = originRefusal(req, origins, hosts, !mcp);
    if (refusal !== undefined) return refused(mcp, refusal);
    const res = await handle(req);
    return mcp && isRefusal(res.status) ? await jsonRpcRefusal(res) : res;
  };
  return (req) => {
    const path = pathnameOf(req.url);
    const mcp = path === "/svc/mcp";
    // Any other route goes straight to the handler: no async step of its own on every request.
    return mcp || options.isOAuthPath(path) ? guarded(req, mcp) : handle(req);
  };
}

/**
 * Why a request is refused, or `undefined`. Without configured origins, an OAuth route also takes its own origin: the
 * consent form posts from the app's page (a rebinding page has none of the app's cookies, and the form its token).
 */
function originRefusal(
  req: Request,
  origins: ReadonlySet<string>,
  hosts: ReadonlySet<string>,
  ownOriginServed: boolean,
): string | undefined {
  const origin = req.headers.get("origin");
  if (origin !== null) {
    // The consent page sends no referrer, so a browser posts its form with `Origin: null`: an OAuth route takes it
    // (its form carries a consent token bound to the signed-in user), configured origins or not; /svc/mcp never does.
    const opaqueForm = ownOriginServed && origin === "null";
    const own = ownOriginServed && origin === new URL(req.url).origin;
    const allowed = opaqueForm || (origins.size ? origins.has(origin) : own || isLoopbackOrigin(origin));
    if (!allowed) {
      return origins.size
        ? "Forbidden: this Origin is not one of the app's origins (oauth.publicUrl, mcp.allowedOrigins)"
        : "Forbidden: only loopback origins are served until the app sets oauth.publicUrl or mcp.allowedOrigins";
    }
  }
  if (hosts.size && !hosts.has(new URL(req.url).host)) {
    return "Forbidden: this Host is not one of the app's origins (oauth.publicUrl, mcp.allowedOrigins)";
  }
  return undefined;
}

function refused(mcp: boolean, message: string): Response {
  return mcp
    ? json({ jsonrpc: "2.0", id: null, error: { code: MCP_REFUSAL_CODES[403], message } }, 403)
    : json({ error: "access_denied", error_description: message }, 403, { "cache-control": "no-store" });
}

/** Whether `/svc/mcp` answers this status's envelope as a JSON-RPC error. */
const isRefusal = (status: number): status is keyof typeof MCP_REFUSAL_CODES =>
  status === 401 || status === 403 || status === 429;

/** A `401`, `403` or `429` envelope of `/svc/mcp` as a JSON-RPC error, its status and headers kept. */
async function jsonRpcRefusal(res: Response): Promise<Response> {
  const status = res.status as keyof typeof MCP_REFUSAL_CODES; // a refusal's (isRefusal)
  const envelope = await res.clone().json().catch(() => null) as
    | { ok?: boolean; error?: { code?: string; message?: string; details?: unknown } }
    | null;
  if (envelope?.ok !== false || envelope.error === undefined) return res;
  const { code, message = "", details } = envelope.error;
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json");
  headers.delete("content-length");
  const error = {
    code: MCP_REFUSAL_CODES[status],
    message: userMessage(status, message, res.headers.get("retry-after")),
    data: { code, message, ...(details === undefined ? {} : { details }) },
  };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error }), { status, headers });
}

/** What the user reads in the client: what happened and what to do. */
function userMessage(status: number, said: string, retryAfter: string | null): string {
  const message = said.replace(/\.\s*$/, "");
  if (status === 401) {
    return `Not signed in to this MCP server (${message}). Connect again to sign in, or use a valid agent key.`;
  }
  if (status === 429) {
    return `Too many requests to this MCP server: retry in ${retryAfter ?? "a few"} seconds.`;
  }
  return `Not allowed (${message}). Connect again and allow the permissions this tool needs.`;
}
