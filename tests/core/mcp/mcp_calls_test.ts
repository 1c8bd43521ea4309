// The checks POST /svc/mcp makes before the MCP SDK: each tools/call passes
// the body schema of /svc/agent/run or is answered -32602 with a short message,
// without reaching the runner; each call takes a rate-limit token.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { MAX_PAYLOAD_DEPTH } from "../../../core/app/routes/mod.ts";
import { BASE, mint, notesSvc } from "../../fixtures/notes_svc.ts";

/** Posts a raw JSON-RPC body to /svc/mcp, as an MCP client would after `initialize`. */
async function rpc(svc: Svc, key: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await svc.handle(
    new Request(`${BASE}/svc/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
  return { status: res.status, body: await res.json() };
}

const call = (id: number, params: unknown) => ({ jsonrpc: "2.0", id, method: "tools/call", params });

type RpcError = { id: number; error: { code: number; message: string } };

/** Sends one tools/call (or its JSON text) and returns the JSON-RPC error it gets, checking the runner never ran. */
async function refusal(params: unknown, overrides: Parameters<typeof notesSvc>[0] = {}): Promise<RpcError["error"]> {
  let ran = 0;
  const svc = notesSvc({ onAgentIntent: () => ++ran, ...overrides });
  try {
    const { key, id } = await mint(svc, "alice", ["notes:write"]);
    const answer = await rpc(svc, key, typeof params === "string" ? params : call(7, params));
    assert.equal(answer.status, 200);
    const { id: answered, error } = answer.body as RpcError;
    assert.equal(answered, 7);
    assert.equal(ran, 0, "the call never reaches the runner");
    assert.deepEqual(await svc.violations({ keyId: id }), [], "nothing is recorded for a malformed call");
    return error;
  } finally {
    await svc.close();
  }
}

test("tools/call whose arguments are not an object answers -32602 with a short message, not a zod dump", async () => {
  const error = await refusal({ name: "notes.create", arguments: "title" });
  assert.equal(error.code, -32602);
  assert.match(error.message, /^Invalid tools\/call params: arguments: /);
  assert.ok(error.message.length < 200, error.message);
  assert.doesNotMatch(error.message, /MCP error|\[\s*\{/);
});

test("tools/call without a name answers -32602 naming the field", async () => {
  const error = await refusal({ arguments: {} });
  assert.equal(error.code, -32602);
  assert.match(error.message, /^Invalid tools\/call params: name: /);
});

test("tools/call with a name over 200 characters or with a NUL is refused before the runner, as /svc/agent/run is", async () => {
  for (const name of ["x".repeat(201), "notes\u0000create"]) {
    const error = await refusal({ name, arguments: {} });
    assert.equal(error.code, -32602);
    assert.ok(!error.message.includes(name), "the name is not echoed");
  }
});

test("tools/call with arguments nested deeper than MAX_PAYLOAD_DEPTH is refused before the runner", async () => {
  // The JSON text is built by hand: JSON.stringify itself recurses too deeply for 100,000 levels.
  const nested = (depth: number) =>
    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"other.intent","arguments":` +
    '{"a":'.repeat(depth) + "1" + "}".repeat(depth) + "}}";
  const shallow = await refusal(nested(MAX_PAYLOAD_DEPTH + 1));
  assert.match(shallow.message, new RegExp(`at most ${MAX_PAYLOAD_DEPTH} levels`));
  const deep = await refusal(nested(100_000));
  assert.equal(deep.code, -32602);
});

test("a JSON-RPC batch answers its malformed calls with -32602 and runs the others", async () => {
  const svc = notesSvc();
  try {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const answer = await rpc(svc, key, [call(1, { name: "notes.create", arguments: { title: "t" } }), call(2, {})]);
    const answers = answer.body as { id: number; result?: { structuredContent: unknown }; error?: { code: number } }[];
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2]);
    assert.deepEqual(answers.find((a) => a.id === 1)?.result?.structuredContent, {
      id: "n_t",
      title: "t",
      owner: "alice",
    });
    assert.equal(answers.find((a) => a.id === 2)?.error?.code, -32602);
  } finally {
    await svc.close();
  }
});

test("a JSON-RPC batch of N tools/call takes N rate-limit tokens", async () => {
  let ran = 0;
  const svc = notesSvc({ onAgentIntent: () => ++ran, rateLimit: { perKey: { limit: 5, windowMs: 60_000 } } });
  try {
    const { key } = await mint(svc, "alice", []);
    const batch = (n: number) => Array.from({ length: n }, (_, i) => call(i + 1, { name: "other.intent" }));
    assert.equal((await rpc(svc, key, batch(3))).status, 200);
    assert.equal(ran, 3);
    const over = await rpc(svc, key, batch(3));
    assert.equal(over.status, 429);
    assert.equal((over.body as { error: { data: { code: string } } }).error.data.code, "RATE_LIMITED");
    assert.equal(ran, 3, "no call of a refused batch runs");
    const flood = await rpc(svc, key, batch(100));
    assert.equal(flood.status, 429);
    assert.equal(ran, 3);
  } finally {
    await svc.close();
  }
});
