/**
 * Approvals over MCP: a tool call that waits for its user's decision answers a URL-mode elicitation
 * (`URLElicitationRequiredError`, -32042, with `decideUrl`) to a client that declared `elicitation.url`, else a
 * tool result `{ status: "pending_approval", approvalId, decideUrl }`; the tool `svc.approval_status` reads the
 * outcome. The endpoint keeps no session: a client's capabilities are read from the request's `_meta` (the
 * 2026-07-28 revision) or remembered from the key's last `initialize` (2025-11-25).
 *
 * @module
 */
import { BoundedMap } from "../cache/mod.ts";
import { pendingBody } from "../app/routes/mod.ts";
import type { PendingApproval } from "../intents/mod.ts";
import { JsonRpcError } from "./mcp_direct.ts";
import { META_CLIENT_CAPABILITIES } from "./mcp_modern.ts";
import { type McpTool, type McpToolResult, REQUIRED_SCOPES_META } from "./mcp_tools.ts";

/** The tool that reads an approval's outcome. */
export const APPROVAL_STATUS_TOOL = "svc.approval_status";

/** JSON-RPC's code of `URLElicitationRequiredError` (MCP 2025-11-25). */
export const URL_ELICITATION_REQUIRED = -32042;

/** How many keys' `initialize` capabilities are remembered, and for how long. */
const REMEMBERED_KEYS = 10_000;
const REMEMBERED_MS = 24 * 60 * 60_000;

/** `svc.approval_status` as `tools/list` shows it. */
export const approvalStatusTool: McpTool = {
  name: APPROVAL_STATUS_TOOL,
  title: "Approval status",
  description: "The outcome of a call that waited for its user's approval: pending, approved (with the result), " +
    "denied (with the reason), expired or cancelled",
  inputSchema: {
    type: "object",
    properties: { approvalId: { type: "string", description: "The approvalId of the pending call" } },
    required: ["approvalId"],
    additionalProperties: false,
  },
  _meta: { [REQUIRED_SCOPES_META]: [] },
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Whether capabilities declare URL-mode elicitation. */
function declaresUrl(capabilities: unknown): boolean {
  return isObject(capabilities) && isObject(capabilities.elicitation) && isObject(capabilities.elicitation.url);
}

/** Which keys' clients declared URL-mode elicitation, from their requests. */
export interface ElicitationCapabilities {
  /** Whether this request's client takes URL-mode elicitation, noting an `initialize` it carries. */
  declared(keyId: string, body: unknown): boolean;
}

/**
 * Remembers, per key, what its client's last `initialize` declared, and reads a request's own `_meta`.
 *
 * @returns The capabilities.
 */
export function elicitationCapabilities(): ElicitationCapabilities {
  const initialized = new BoundedMap<string, boolean>({ maxEntries: REMEMBERED_KEYS, ttlMs: REMEMBERED_MS });
  return {
    declared(keyId, body) {
      let declared = false;
      for (const message of Array.isArray(body) ? body : [body]) {
        if (!isObject(message) || !isObject(message.params)) continue;
        const { params } = message;
        if (message.method === "initialize") initialized.set(keyId, declaresUrl(params.capabilities));
        if (isObject(params._meta) && declaresUrl(params._meta[META_CLIENT_CAPABILITIES])) declared = true;
      }
      return declared || initialized.get(keyId) === true;
    },
  };
}

/**
 * What a tool call that waits for its user's decision answers.
 *
 * @param pending What the runner answered.
 * @param req The request (the page's origin).
 * @param url Whether the client takes URL-mode elicitation.
 * @returns The tool result, or throws the `-32042` error.
 */
export function pendingToolAnswer(pending: PendingApproval, req: Request, url: boolean): McpToolResult {
  const { approvalId, decideUrl } = pendingBody(pending, req);
  if (url) {
    throw new JsonRpcError(URL_ELICITATION_REQUIRED, "This call waits for its user's approval", {
      elicitations: [{
        mode: "url",
        elicitationId: approvalId,
        url: decideUrl,
        message: `Approve or deny this call, then read its outcome with ${APPROVAL_STATUS_TOOL}`,
      }],
    });
  }
  const structuredContent = { status: "pending_approval", approvalId, decideUrl };
  return { content: [{ type: "text", text: JSON.stringify(structuredContent) }], structuredContent, isError: false };
}
