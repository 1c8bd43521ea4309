import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { intentTool } from "../../../core/mcp/mod.ts";
import { asAgent, asUser, BASE, errorOf, mcpRefusalOf, mint, notesSvc } from "../../fixtures/notes_svc.ts";
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

test("POST /svc/mcp without a key answers 401 with WWW-Authenticate and a JSON-RPC error a user can read", async () => {
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
    const said = (await res.clone().json()).error.message;
    assert.match(said, /^Not signed in to this MCP server \(An agent key is required/);
    assert.equal((await mcpRefusalOf(res)).code, "UNAUTHORIZED");
    await assert.rejects(connectMcp(BASE, null, inProcess(svc)), /Not signed in to this MCP server/);
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

test("an unknown tool's error reaches the client with one MCP prefix and no secret echoed", async () => {
  await withClient(["notes:write"], async ({ client }) => {
    const secret = `svc_live_${"A1b2".repeat(10)}`;
    await assert.rejects(client.callTool({ name: secret, arguments: {} }), (e: Error & { code?: number }) => {
      assert.equal(e.code, -32602);
      assert.match(
        e.message,
        /^MCP error -32602: Unknown intent "svc_live_…". GET \/svc\/agent\/intents lists the intents.$/,
      );
      assert.ok(!e.message.includes(secret));
      return true;
    });
    await assert.rejects(client.callTool({ name: "nope", arguments: {} }), {
      message: 'MCP error -32602: Unknown intent "nope". GET /svc/agent/intents lists the intents.',
    });
    await assert.rejects(
      client.callTool({ name: "notes.craete", arguments: {} }),
      (e: Error & { code?: number; data?: unknown }) => {
        assert.equal(
          e.message,
          'MCP error -32602: Unknown intent "notes.craete". Did you mean "notes.create"? ' +
            "GET /svc/agent/intents lists the intents.",
        );
        assert.deepEqual(e.data, { didYouMean: "notes.create", intentsUrl: "/svc/agent/intents" });
        return true;
      },
    );
  });
});
