// Every /svc route driven for real (its successes and its main errors), each
// answer checked with Ajv against the document GET /svc/openapi.json serves:
// the status must be documented for the operation and the body must match it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../../mod.ts";
import { svcRouteTable } from "../../../fixtures/svc_table.ts";
import { type AnswerChecker, answerChecker, expectedStatuses } from "../../../fixtures/openapi_answers.ts";
import { BASE, intents, mint, notesSvc, SCOPES } from "../../../fixtures/notes_svc.ts";
import { defineIntent } from "../../../../mod.ts";
import { ROUTES, setThrowawayKeyId } from "../../../fixtures/route_samples.ts";
import { oauthAccessToken } from "../../../fixtures/oauth_app.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";

const BODY_LIMIT = 64_000;
const MCP_ACCEPT = "application/json, text/event-stream";

let svc: Svc;
let limited: Svc;
let checker: AnswerChecker;
let agentKey: string;

before(async () => {
  svc = notesSvc({ bodyLimit: BODY_LIMIT });
  limited = notesSvc({ bodyLimit: BODY_LIMIT, rateLimit: { perKey: { limit: 1, windowMs: 60_000 } } });
  const res = await svc.handle(new Request(`${BASE}/svc/openapi.json`));
  checker = answerChecker(await res.json());
  agentKey = (await mint(svc, "alice", [...SCOPES])).key;
});
after(async () => {
  await svc.close();
  await limited.close();
});

interface Call {
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** The agent key to send, or `null` for no credential; the user is alice unless `user: null`. */
  key?: string | null;
  user?: string | null;
}

/** Sends a request to a /svc route of `app` with the credential its auth wants, and checks the answer. */
async function send(app: Svc, route: string, call: Call): Promise<{ status: number; body: unknown }> {
  const [method, pattern] = route.split(" ");
  const headers: Record<string, string> = { ...call.headers };
  const auth = ROUTES[route].auth;
  const key = call.key === undefined ? agentKey : call.key;
  const user = call.user === undefined ? "alice" : call.user;
  if (auth === "agent" && key !== null) headers.authorization = `Bearer ${key}`;
  if (auth === "user" && user !== null) headers["x-user"] = user;
  if (call.body !== undefined) headers["content-type"] ??= "application/json";
  const body = typeof call.body === "string" || call.body === undefined ? call.body : JSON.stringify(call.body);
  const path = call.path.startsWith("/") ? call.path : pattern + call.path;
  const res = await app.handle(new Request(BASE + path, { method, headers, body }));
  const text = await res.text();
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  const answer = { status: res.status, body: text ? (json ? JSON.parse(text) : text) : null };
  checker.check(method, pattern, answer.status, answer.body);
  return answer;
}

const sample = (route: string): Call => ROUTES[route].request();

test("every /svc route's success answer matches the document", async () => {
  setThrowawayKeyId((await mint(svc, "alice", [])).id);
  for (const route of svcRouteTable()) {
    const id = `${route.method} ${route.path}`;
    const answer = await send(svc, id, sample(id));
    assert.equal(answer.status, ROUTES[id].status, `${id}: ${JSON.stringify(answer.body)}`);
  }
});

test("each intent's result, an MCP tool call and a notification match the document", async () => {
  const created = await send(svc, "POST /svc/agent/run", { path: "", body: { intent: "notes.create", payload: {} } });
  assert.equal(created.status, 400, "the payload fails the intent's schema");
  for (const [intent, payload] of [["notes.create", { title: "t" }], ["admin.wipe", { confirm: true }]] as const) {
    const answer = await send(svc, "POST /svc/agent/run", { path: "", body: { intent, payload } });
    assert.equal(answer.status, 200, intent);
  }
  const mcp = { headers: { accept: MCP_ACCEPT }, path: "" };
  const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "notes.list", arguments: {} } };
  assert.equal((await send(svc, "POST /svc/mcp", { ...mcp, body: call })).status, 200);
  const batch = [call, { ...call, id: 3, params: {} }];
  assert.equal((await send(svc, "POST /svc/mcp", { ...mcp, body: batch })).status, 200);
  const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
  assert.equal((await send(svc, "POST /svc/mcp", { ...mcp, body: notification })).status, 202);
});

test("the intent runner's refusals and failures match the document: 403, 404, 500", async () => {
  const { key } = await mint(svc, "alice", []);
  const run = (intent: string, payload?: unknown) =>
    send(svc, "POST /svc/agent/run", { path: "", key, body: { intent, payload } });
  assert.equal((await run("notes.create", { title: "t" })).status, 403);
  assert.equal((await run("notes.nothing")).status, 404);
  assert.equal((await run("notes.broken")).status, 500);
  assert.equal((await send(svc, "DELETE /svc/keys/:id", { path: `/svc/keys/${crypto.randomUUID()}` })).status, 404);
  const reroll = { path: `/svc/keys/${crypto.randomUUID()}/reroll`, body: {} };
  assert.equal((await send(svc, "POST /svc/keys/:id/reroll", reroll)).status, 404);
});

test("/svc/mcp's 2026-07-28 unknown method (404) and an OAuth token's step-up (403) match the document", async () => {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const ping = {
    path: "",
    headers: { accept: MCP_ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "ping" },
    body: { jsonrpc: "2.0", id: 4, method: "ping", params: { _meta: meta } },
  };
  assert.equal((await send(svc, "POST /svc/mcp", ping)).status, 404);
  const withOAuth = notesSvc({ oauth: {} });
  try {
    const key = await oauthAccessToken((req) => withOAuth.handle(req), ["notes:read"]);
    const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "notes.create", arguments: {} } };
    const refused = await send(withOAuth, "POST /svc/mcp", {
      path: "",
      key,
      headers: { accept: MCP_ACCEPT },
      body: call,
    });
    assert.equal(refused.status, 403);
  } finally {
    await withOAuth.close();
  }
});

/** A request of the right shape but wrong values, per route that takes input. */
const BAD_INPUT: Record<string, Call> = {
  "POST /svc/keys": { path: "", body: { name: "k", scopes: ["notes:delete"] } },
  "DELETE /svc/keys/:id": { path: `/svc/keys/${"x".repeat(201)}` },
  "POST /svc/keys/:id/reroll": { path: "/svc/keys/k/reroll", body: { graceMinutes: -1 } },
  "POST /svc/agent/run": { path: "", body: { intent: "" } },
  "POST /svc/mcp": { path: "", body: [], headers: { accept: MCP_ACCEPT } },
  "GET /svc/approvals": { path: "?status=maybe" },
  "GET /svc/approvals/:id": { path: `/svc/approvals/${"x".repeat(201)}` },
  "POST /svc/approvals/:id/approve": { path: `/svc/approvals/${"x".repeat(201)}/approve` },
  "POST /svc/approvals/:id/deny": { path: "/svc/approvals/x/deny", body: { reason: 5 } },
  "GET /svc/agent/approvals/:id": { path: "/svc/agent/approvals/x?wait=99" },
  "GET /svc/activity": { path: "?cursor=nonsense" },
};

test("401, 400, 406, 413 and 429 answers of every /svc route match the document", async () => {
  for (const route of svcRouteTable()) {
    const id = `${route.method} ${route.path}`;
    if (route.auth !== "none") {
      const anonymous = await send(svc, id, { ...sample(id), key: null, user: null });
      assert.equal(anonymous.status, 401, id);
    }
    if (route.body || route.query || route.params) {
      const bad = await send(svc, id, BAD_INPUT[id]);
      assert.equal(bad.status, 400, `${id}: ${JSON.stringify(bad.body)}`);
    }
    if (route.body) {
      const huge = { ...sample(id), body: JSON.stringify({ pad: "x".repeat(BODY_LIMIT) }) };
      assert.equal((await send(svc, id, huge)).status, 413, id);
    }
  }
  const unacceptable = { ...sample("POST /svc/mcp"), headers: { accept: "application/json" } };
  assert.equal((await send(svc, "POST /svc/mcp", unacceptable)).status, 406);
  const { key } = await mint(limited, "alice", [...SCOPES]);
  for (const route of svcRouteTable().filter((r) => r.limit !== undefined)) {
    const id = `${route.method} ${route.path}`;
    const statuses = [(await send(limited, id, { ...sample(id), key })).status];
    statuses.push((await send(limited, id, { ...sample(id), key })).status);
    assert.equal(statuses.at(-1), 429, `${id}: ${statuses}`);
  }
});

test("GET /svc/health answers 503 with the documented health while the agent routes refuse", async () => {
  const dir = tempDir("svc-health-answer-");
  let now = Date.now();
  const stale = notesSvc({
    mode: "hybrid",
    storage: `file:${dir.file("app.db")}`,
    // Nothing listens on port 9 here: the feed is never heard, and the clock passes the bound.
    cloud: { endpoint: "http://127.0.0.1:9", projectId: "prj_x", sdkSecret: "svcs_x", maxRevocationLagMs: 1000 },
  }, () => now);
  try {
    await stale.ready;
    now += 1001;
    const answer = await send(stale, "GET /svc/health", sample("GET /svc/health"));
    assert.equal(answer.status, 503, JSON.stringify(answer.body));
    assert.equal((answer.body as { ok: boolean }).ok, false);
  } finally {
    await stale.close();
    dir.remove();
  }
});

test("the approval routes' answers match the document: 202, the page, decisions, 409 and a failed run", async () => {
  const withApprovals = notesSvc({
    intents: [
      ...intents,
      defineIntent({
        name: "notes.delete_all",
        title: "Delete all notes",
        requiredScopes: [],
        approval: "always",
        handler: () => ({ deleted: 1 }),
      }),
      defineIntent({
        name: "notes.fail_later",
        title: "Fails once approved",
        requiredScopes: [],
        approval: "always",
        handler: () => {
          throw new Error("no");
        },
      }),
    ],
  });
  try {
    const { key } = await mint(withApprovals, "alice", []);
    const ask = async (intent: string) => {
      const answer = await send(withApprovals, "POST /svc/agent/run", { path: "", key, body: { intent } });
      assert.equal(answer.status, 202);
      return (answer.body as { approvalId: string }).approvalId;
    };
    const first = await ask("notes.delete_all");
    const page = await send(withApprovals, "GET /svc/approvals/:id", { path: `/svc/approvals/${first}` });
    assert.equal(page.status, 200);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body as string)![1];
    const form = (decision: string, token = csrf) => ({
      path: `/svc/approvals/${first}`,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `csrf=${encodeURIComponent(token)}&decision=${decision}`,
    });
    assert.equal((await send(withApprovals, "POST /svc/approvals/:id", form("approve", "x"))).status, 400);
    assert.equal((await send(withApprovals, "POST /svc/approvals/:id", form("approve"))).status, 200);
    assert.equal((await send(withApprovals, "POST /svc/approvals/:id", form("deny"))).status, 409);
    const approve = (id: string) =>
      send(withApprovals, "POST /svc/approvals/:id/approve", { path: `/svc/approvals/${id}/approve` });
    assert.equal((await approve(first)).status, 409);
    const agent = await send(withApprovals, "GET /svc/agent/approvals/:id", {
      path: `/svc/agent/approvals/${first}`,
      key,
    });
    assert.equal(agent.status, 200);
    const second = await ask("notes.delete_all");
    const deny = (id: string) =>
      send(withApprovals, "POST /svc/approvals/:id/deny", { path: `/svc/approvals/${id}/deny`, body: {} });
    assert.equal((await deny(second)).status, 200);
    assert.equal((await deny(second)).status, 409);
    const third = await ask("notes.delete_all");
    assert.equal((await approve(third)).status, 200);
    assert.equal((await approve(await ask("notes.fail_later"))).status, 500);
  } finally {
    await withApprovals.close();
  }
});

test("every status the /svc routes must reach was reached and matched the document", () => {
  const missing = svcRouteTable().flatMap(expectedStatuses).filter((s) => !checker.covered.has(s));
  assert.deepEqual(missing, []);
});
