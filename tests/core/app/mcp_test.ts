import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { MAX_PAYLOAD_DEPTH } from "../../../core/app/agent_routes.ts";
import { intentTool } from "../../../core/app/mcp_tools.ts";
import { asAgent, asUser, BASE, errorOf, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { codeOf, connectMcp, textOf } from "../../fixtures/mcp_client.ts";

const inProcess = (svc: Svc) => (url: string | URL, init?: RequestInit) => svc.handle(new Request(url, init));

async function withClient(
  scopes: string[],
  check: (ctx: { svc: Svc; client: Awaited<ReturnType<typeof connectMcp>>; keyId: string }) => Promise<void>,
  overrides: Parameters<typeof notesSvc>[0] = {},
): Promise<void> {
  const svc = notesSvc(overrides);
  const { key, id } = await mint(svc, "alice", scopes);
  const client = await connectMcp(BASE, key, inProcess(svc));
  try {
    await check({ svc, client, keyId: id });
  } finally {
    await client.close();
    await svc.close();
  }
}

test("tools/list lists exactly the intents the key may call, as GET /svc/agent/intents allows them", async () => {
  await withClient(["notes:write"], async ({ svc, client }) => {
    const { tools } = await client.listTools();
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const { intents } = await (await asAgent(svc, key, "GET", "/svc/agent/intents")).json();
    const allowed = intents.filter((i: { allowed: boolean }) => i.allowed).map((i: { name: string }) => i.name);
    assert.deepEqual(tools.map((t) => t.name).sort(), allowed.sort());
    assert.ok(!tools.some((t) => t.name === "notes.list" || t.name === "admin.wipe"));
  });
});

test("a tool carries the intent's title and its input and output JSON Schema", async () => {
  await withClient(["notes:write"], async ({ client }) => {
    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === "notes.create")!;
    assert.equal(create.title, "Create a note");
    assert.match(create.description ?? "", /notes:write/);
    assert.equal(create.inputSchema.type, "object");
    assert.deepEqual(create.inputSchema.required, ["title"]);
    assert.equal(create.outputSchema?.type, "object");
    const broken = tools.find((t) => t.name === "notes.broken")!;
    assert.equal(broken.outputSchema, undefined, "an output of any shape declares no outputSchema");
  });
});

test("tools/call runs an intent and answers structuredContent and a text block", async () => {
  await withClient(["notes:write"], async ({ client }) => {
    await client.listTools(); // so the client checks structuredContent against outputSchema
    const result = await client.callTool({ name: "notes.create", arguments: { title: "from mcp" } });
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { id: "n_from mcp", title: "from mcp", owner: "alice" });
    assert.deepEqual(textOf(result), result.structuredContent);
  });
});

test("tools/call outside the key's scopes is a tool error and a FORBIDDEN_SCOPE violation", async () => {
  await withClient(["notes:write"], async ({ svc, client, keyId }) => {
    const result = await client.callTool({ name: "notes.list", arguments: {} });
    assert.equal(result.isError, true);
    assert.deepEqual(textOf(result), {
      ok: false,
      error: {
        code: "FORBIDDEN_SCOPE",
        message: 'This key lacks scopes required by "notes.list"',
        details: { missingScopes: ["notes:read"] },
      },
    });
    const [violation] = await svc.violations({ keyId });
    assert.equal(violation.kind, "FORBIDDEN_SCOPE");
    assert.equal(violation.intent, "notes.list");
  });
});

test("tools/call with arguments that fail the input schema is a tool error listing the issues", async () => {
  await withClient(["notes:write"], async ({ svc, client, keyId }) => {
    const result = await client.callTool({ name: "notes.create", arguments: { title: 42 } });
    assert.equal(result.isError, true);
    const { error } = textOf(result) as { error: { code: string; details: { issues: { path: string }[] } } };
    assert.equal(error.code, "INTENT_VALIDATION_ERROR");
    assert.equal(error.details.issues[0].path, "title");
    assert.equal((await svc.violations({ keyId }))[0].kind, "INTENT_VALIDATION_ERROR");
  });
});

test("tools/call of an unknown tool is a protocol error and an UNKNOWN_INTENT violation", async () => {
  await withClient(["notes:write"], async ({ svc, client, keyId }) => {
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32602);
      return true;
    });
    assert.equal((await svc.violations({ keyId }))[0].kind, "UNKNOWN_INTENT");
  });
});

test("a handler that throws is a generic INTENT_FAILED tool error that leaks nothing", async () => {
  const logged: unknown[] = [];
  await withClient([], async ({ client }) => {
    const result = await client.callTool({ name: "notes.broken", arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(codeOf(result), "INTENT_FAILED");
    assert.doesNotMatch(JSON.stringify(result), /hunter2/);
    assert.equal(logged.length, 1, "the cause goes to the log");
  }, { logger: (_message, cause) => logged.push(cause) });
});

test("with validateResults a result that breaks its output schema is a RESULT_VALIDATION_ERROR tool error", async () => {
  await withClient([], async ({ client }) => {
    const result = await client.callTool({ name: "notes.lies", arguments: {} });
    assert.equal(codeOf(result), "RESULT_VALIDATION_ERROR");
  }, { validateResults: true });
});

test("POST /svc/mcp without a key answers 401 with WWW-Authenticate and the error envelope", async () => {
  const svc = notesSvc();
  try {
    const res = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    assert.equal(res.status, 401);
    assert.match(res.headers.get("www-authenticate") ?? "", /^Bearer\b/);
    assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
    await assert.rejects(connectMcp(BASE, null, inProcess(svc)));
  } finally {
    await svc.close();
  }
});

test("a revoked key is refused at /svc/mcp and recorded as REVOKED_KEY", async () => {
  const svc = notesSvc();
  try {
    const { key, id } = await mint(svc, "alice", ["notes:write"]);
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).status, 200);
    await assert.rejects(connectMcp(BASE, key, inProcess(svc)));
    assert.equal((await svc.violations({ keyId: id }))[0].kind, "REVOKED_KEY");
  } finally {
    await svc.close();
  }
});

test("GET /svc/mcp answers 405 with Allow: POST, since the endpoint opens no server stream", async () => {
  const svc = notesSvc();
  try {
    const res = await asAgent(svc, null, "GET", "/svc/mcp");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "POST");
    assert.equal((await errorOf(res)).code, "METHOD_NOT_ALLOWED");
  } finally {
    await svc.close();
  }
});

test("mcp: false removes /svc/mcp", async () => {
  const svc = notesSvc({ mcp: false });
  try {
    const { key } = await mint(svc, "alice", []);
    assert.equal((await errorOf(await asAgent(svc, key, "POST", "/svc/mcp", {}))).code, "NOT_FOUND");
  } finally {
    await svc.close();
  }
});

test("an intent whose input is not a plain object schema still gets an object inputSchema", () => {
  const union = { $schema: "https://json-schema.org/draft/2020-12/schema", anyOf: [{ type: "object" }] };
  const tool = intentTool({ name: "u", title: "U", requiredScopes: [], input: union, output: {}, allowed: true });
  assert.deepEqual(tool.inputSchema, {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    allOf: [{ anyOf: [{ type: "object" }] }],
  });
  assert.equal(tool.outputSchema, undefined);
  assert.equal(tool.description, "U");
});

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

test("an unknown tool's error reaches the client with one MCP prefix and no secret echoed", async () => {
  await withClient(["notes:write"], async ({ client }) => {
    const secret = `svc_live_${"A1b2".repeat(10)}`;
    await assert.rejects(client.callTool({ name: secret, arguments: {} }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32602);
      assert.match(e.message, /^MCP error -32602: Unknown intent "svc_live_…"$/);
      assert.ok(!e.message.includes(secret));
      return true;
    });
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), {
      message: 'MCP error -32602: Unknown intent "nope"',
    });
  });
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
    assert.equal((over.body as { error: { code: string } }).error.code, "RATE_LIMITED");
    assert.equal(ran, 3, "no call of a refused batch runs");
    const flood = await rpc(svc, key, batch(100));
    assert.equal(flood.status, 429);
    assert.equal(ran, 3);
  } finally {
    await svc.close();
  }
});
