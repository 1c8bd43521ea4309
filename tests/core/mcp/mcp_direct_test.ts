// tools/list and tools/call answered without the MCP SDK answer exactly what the SDK answers:
// the same request goes once the direct way and once through the SDK (a content type with a
// charset, which only the SDK takes), and the two answers must match.
import { test } from "node:test";
import assert from "node:assert/strict";
import { answerDirectly, JsonRpcError, type ToolAnswers } from "../../../core/mcp/mcp_direct.ts";
import { BASE, mint, notesSvc } from "../../fixtures/notes_svc.ts";

const ACCEPT = "application/json, text/event-stream";

function post(key: string, body: unknown, contentType: string, extra: Record<string, string> = {}): Request {
  return new Request(`${BASE}/svc/mcp`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": contentType, accept: ACCEPT, ...extra },
    body: JSON.stringify(body),
  });
}

const requests = [
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: "l", method: "tools/list", params: {} },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "notes.create", arguments: { title: "t" } } },
  { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "notes.list", arguments: {} } },
  { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "notes.create", arguments: { title: 42 } } },
  { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "notes.craete" } },
  { jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "notes.broken", arguments: {} } },
  { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "notes.lies", arguments: {} } },
];

test("tools/list and tools/call answered directly match the MCP SDK's answers: status, content type and body", async () => {
  const svc = notesSvc({ validateResults: true, logger: () => {} });
  try {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    for (const body of requests) {
      const direct = await svc.handle(post(key, body, "application/json"));
      const viaSdk = await svc.handle(post(key, body, "application/json; charset=utf-8"));
      assert.equal(direct.status, viaSdk.status, JSON.stringify(body));
      assert.equal(direct.headers.get("content-type"), viaSdk.headers.get("content-type"));
      assert.deepEqual(await direct.json(), await viaSdk.json(), JSON.stringify(body));
    }
  } finally {
    await svc.close();
  }
});

const answers: ToolAnswers = {
  listTools: () => [],
  callTool: (name) => Promise.reject(new JsonRpcError(-32602, `Unknown intent "${name}"`, { didYouMean: "x" })),
};
const versions = ["2025-06-18"];

test("answerDirectly answers a plain tools/call, with the handler's JSON-RPC error as the SDK sends it", async () => {
  const req = post("k", {}, "application/json", { "mcp-protocol-version": "2025-06-18" });
  const call = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "nope" } };
  const res = await answerDirectly(req, call, versions, answers);
  assert.equal(res?.status, 200);
  assert.deepEqual(await res?.json(), {
    jsonrpc: "2.0",
    id: 9,
    error: { code: -32602, message: 'Unknown intent "nope"', data: { didYouMean: "x" } },
  });
});

test("answerDirectly leaves to the SDK what the SDK checks or answers otherwise", async () => {
  const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
  const plain = post("k", {}, "application/json");
  const cases: [Request, unknown][] = [
    [post("k", {}, "application/json", { "mcp-protocol-version": "1999-01-01" }), list],
    [post("k", {}, "application/json", { accept: "application/json" }), list],
    [post("k", {}, "text/plain"), list],
    [plain, [list]],
    [plain, { ...list, method: "initialize" }],
    [plain, { ...list, method: "ping" }],
    [plain, { jsonrpc: "2.0", method: "notifications/initialized" }],
    [plain, { ...list, id: 1.5 }],
    [plain, { ...list, id: null }],
    [plain, { ...list, jsonrpc: "1.0" }],
    [plain, { ...list, extra: true }],
    [plain, { ...list, params: { cursor: "c" } }],
    [plain, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "n", _meta: {} } }],
    [plain, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "n", task: {} } }],
  ];
  for (const [req, body] of cases) {
    assert.equal(await answerDirectly(req, body, versions, answers), undefined, JSON.stringify(body));
  }
});
