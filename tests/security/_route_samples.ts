// A valid request for every /svc and /v1 route, keyed "METHOD /path": the
// auth matrix sends them with each credential case, and the property tests
// mutate them. A route added to a table fails the matrix until it is added here.
import type { RouteAuth } from "./_credentials.ts";

/** A valid request for a route, so that only the credential decides. */
export interface Sample {
  auth: RouteAuth;
  status: number;
  request(): { path: string; body?: unknown; headers?: Record<string, string> };
}

const uuid = () => crypto.randomUUID();
const hex64 = () => uuid().replaceAll("-", "").padEnd(64, "0");
let throwawayKeyId = "";

/** The key id the DELETE samples revoke: a key minted for the purpose. */
export function setThrowawayKeyId(id: string): void {
  throwawayKeyId = id;
}
let n = 0;

/** One entry per route of both tables: update it when a route is added. */
export const ROUTES: Record<string, Sample> = {
  "PUT /v1/sdk/intents": { auth: "sdk", status: 200, request: () => ({ path: "", body: { intents: [] } }) },
  "GET /v1/sdk/intents": { auth: "sdk", status: 200, request: () => ({ path: "" }) },
  "POST /v1/sdk/violations": {
    auth: "sdk",
    status: 200,
    request: () => ({ path: "", body: { violation: { apiKeyId: uuid(), kind: "X", severity: "info" } } }),
  },
  "GET /v1/sdk/violations": { auth: "sdk", status: 200, request: () => ({ path: "?severity=info" }) },
  "POST /v1/events": {
    auth: "sdk",
    status: 202,
    request: () => ({ path: "", body: { eventId: `m${n++}`, type: "t", agentId: "bob", payload: {} } }),
  },
  "GET /v1/agent/inbox": { auth: "agent", status: 200, request: () => ({ path: "?cursor=0" }) },
  "POST /v1/agent/ack": { auth: "agent", status: 200, request: () => ({ path: "", body: { inboxIds: [1] } }) },
  "GET /v1/agents/:agentId/inbox": { auth: "sdk", status: 200, request: () => ({ path: "/v1/agents/bob/inbox" }) },
  "POST /v1/agents/:agentId/ack": {
    auth: "sdk",
    status: 200,
    request: () => ({ path: "/v1/agents/bob/ack", body: { inboxIds: [1] } }),
  },
  "POST /v1/sdk/keys": {
    auth: "sdk",
    status: 201,
    request: () => ({ path: "", body: { userId: "carol", name: "k", scopes: [] } }),
  },
  "GET /v1/sdk/keys": { auth: "sdk", status: 200, request: () => ({ path: "?userId=carol" }) },
  "POST /v1/sdk/keys/verify": {
    auth: "sdk",
    status: 200,
    request: () => ({ path: "", body: { key: "svc_live_x" } }),
  },
  "DELETE /v1/sdk/keys/:id": {
    auth: "sdk",
    status: 200,
    request: () => ({ path: `/v1/sdk/keys/${throwawayKeyId}` }),
  },
  "PUT /v1/sdk/keys/:id": {
    auth: "sdk",
    status: 200,
    request: () => ({
      path: `/v1/sdk/keys/${uuid()}`,
      body: {
        userId: "dave",
        name: "mirrored",
        scopes: [],
        agentId: "dave",
        hash: hex64(),
        start: "svc_live_abc",
        createdAt: new Date().toISOString(),
        revokedAt: null,
      },
    }),
  },
  "POST /svc/keys": { auth: "user", status: 201, request: () => ({ path: "", body: { name: "k", scopes: [] } }) },
  "GET /svc/keys": { auth: "user", status: 200, request: () => ({ path: "" }) },
  "DELETE /svc/keys/:id": { auth: "user", status: 200, request: () => ({ path: `/svc/keys/${throwawayKeyId}` }) },
  "GET /svc/agent/intents": { auth: "agent", status: 200, request: () => ({ path: "" }) },
  "POST /svc/agent/run": { auth: "agent", status: 200, request: () => ({ path: "", body: { intent: "notes.list" } }) },
  "POST /svc/mcp": {
    auth: "agent",
    status: 200,
    request: () => ({
      path: "",
      headers: { accept: "application/json, text/event-stream" },
      body: { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} },
    }),
  },
  "GET /svc/openapi.json": { auth: "none", status: 200, request: () => ({ path: "" }) },
  "GET /v1/openapi.json": { auth: "none", status: 200, request: () => ({ path: "" }) },
};
