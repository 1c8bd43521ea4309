// Scope step-up (MCP 2025-11-25, "Scope Challenge Handling"): an OAuth access token that lacks a scope an intent
// needs gets 403 with `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"` at
// /svc/mcp and at /svc/agent/run, still recorded as a FORBIDDEN_SCOPE violation; a pasted key keeps its refusal.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asAgent, BASE, errorOf, mcpRefusalOf, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { oauthAccessToken } from "../../fixtures/oauth_app.ts";

/** An access token of alice's, granted `granted` by consent. */
const accessToken = (svc: Svc, granted: string[]): Promise<string> =>
  oauthAccessToken((req) => svc.handle(req), granted);

/** One legacy JSON-RPC request to /svc/mcp. */
function mcp(svc: Svc, key: string, method: string, params: Record<string, unknown> = {}): Promise<Response> {
  return svc.handle(
    new Request(`${BASE}/svc/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }),
  );
}

/** The parameters of a `WWW-Authenticate: Bearer …` value. */
function challengeOf(res: Response): Record<string, string> {
  const header = res.headers.get("www-authenticate") ?? "";
  assert.match(header, /^Bearer /);
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

test("tools/call of an OAuth token without the intent's scope is 403 insufficient_scope naming every scope", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const token = await accessToken(svc, ["notes:read"]);
    const res = await mcp(svc, token, "tools/call", { name: "admin.wipe", arguments: { confirm: true } });
    assert.equal(res.status, 403);
    const challenge = challengeOf(res);
    assert.equal(challenge.error, "insufficient_scope");
    // Every scope admin.wipe needs (admin, notes:write) and the one the token holds, in the app's order.
    assert.equal(challenge.scope, "notes:read notes:write admin");
    assert.equal(challenge.resource_metadata, `${BASE}/.well-known/oauth-protected-resource/svc/mcp`);
    // The body is a JSON-RPC error a client can show; error.data keeps the contract's code and details.
    const error = await mcpRefusalOf(res);
    assert.equal(error.code, "FORBIDDEN_SCOPE");
    assert.deepEqual(error.details, { missingScopes: ["admin", "notes:write"] });
    const violations = await svc.violations();
    assert.deepEqual(violations.map((v) => [v.kind, v.intent]), [["FORBIDDEN_SCOPE", "admin.wipe"]]);

    // tools/list keeps showing only what the token may call.
    const listed = await (await mcp(svc, token, "tools/list")).json();
    assert.deepEqual(listed.result.tools.map((t: { name: string }) => t.name), [
      "notes.broken",
      "notes.lies",
      "notes.list",
      "notes.missing",
    ]);
  } finally {
    await svc.close();
  }
});

test("the scope check still comes before the input schema: a bad payload without the scope is the 403", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const token = await accessToken(svc, ["notes:read"]);
    const res = await mcp(svc, token, "tools/call", { name: "notes.create", arguments: { title: 42 } });
    assert.equal(res.status, 403);
    assert.equal(challengeOf(res).scope, "notes:read notes:write");
  } finally {
    await svc.close();
  }
});

test("a 2026-07-28 tools/call gets the same 403 challenge", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const token = await accessToken(svc, ["notes:read"]);
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const res = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "notes.create",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "notes.create", arguments: { title: "x" }, _meta: meta },
        }),
      }),
    );
    assert.equal(res.status, 403);
    assert.equal(challengeOf(res).scope, "notes:read notes:write");
  } finally {
    await svc.close();
  }
});

test("POST /svc/agent/run with an OAuth token without the scope carries the same challenge", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const token = await accessToken(svc, ["notes:read"]);
    const res = await run(svc, token, "notes.create", { title: "x" });
    assert.equal(res.status, 403);
    const challenge = challengeOf(res);
    assert.equal(challenge.error, "insufficient_scope");
    assert.equal(challenge.scope, "notes:read notes:write");
    assert.equal(challenge.resource_metadata, `${BASE}/.well-known/oauth-protected-resource/svc`);
    assert.equal((await errorOf(res)).code, "FORBIDDEN_SCOPE");
    assert.equal((await run(svc, token, "notes.list")).status, 200, "what the token holds still runs");
  } finally {
    await svc.close();
  }
});

test("a pasted key keeps its refusals: a tool error at /svc/mcp, a 403 without a challenge at /svc/agent/run", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    const called = await mcp(svc, key, "tools/call", { name: "notes.create", arguments: { title: "x" } });
    assert.equal(called.status, 200);
    assert.equal((await called.json()).result.isError, true);
    const ran = await run(svc, key, "notes.create", { title: "x" });
    assert.equal(ran.status, 403);
    assert.equal(ran.headers.get("www-authenticate"), null);
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 200);
  } finally {
    await svc.close();
  }
});

test('mcp.listTools "all" lists every intent with its required scopes, so a call beyond the grant meets the step-up', async () => {
  const svc = notesSvc({ oauth: {}, mcp: { listTools: "all" } });
  try {
    const token = await accessToken(svc, ["notes:read"]);
    const listed = await (await mcp(svc, token, "tools/list")).json();
    const tools = listed.result.tools as { name: string; description: string; _meta: Record<string, string[]> }[];
    const wipe = tools.find((t) => t.name === "admin.wipe");
    assert.ok(wipe, "an intent the grant does not cover is listed");
    assert.deepEqual(wipe._meta["svc/requiredScopes"], ["admin", "notes:write"]);
    assert.match(wipe.description, /Requires scopes: admin, notes:write/);
    const res = await mcp(svc, token, "tools/call", { name: "admin.wipe", arguments: { confirm: true } });
    assert.equal(res.status, 403, "an OAuth token: the step-up");
    assert.equal(challengeOf(res).error, "insufficient_scope");

    const { key } = await mint(svc, "alice", ["notes:read"]);
    const pasted = await mcp(svc, key, "tools/call", { name: "admin.wipe", arguments: { confirm: true } });
    assert.equal(pasted.status, 200, "a pasted key cannot be re-authorized: a tool error");
    const { result } = await pasted.json();
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).error.code, "FORBIDDEN_SCOPE");
  } finally {
    await svc.close();
  }
});
