// MCP 2026-07-28 at /svc/mcp: no session, the protocol version and capabilities in each request's `_meta`,
// `server/discover`, the Mcp-Method and Mcp-Name headers checked against the body, tools listed by name; and the
// JSON-RPC parse error of both revisions.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { BASE, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { connectMcp } from "../../fixtures/mcp_client.ts";

const VERSION = "2026-07-28";
const META = {
  "io.modelcontextprotocol/protocolVersion": VERSION,
  "io.modelcontextprotocol/clientInfo": { name: "modern-test", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A modern request: headers mirrored from the body unless `headers` says otherwise (null drops one). */
function modern(
  svc: Svc,
  key: string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string | null> = {},
): Promise<Response> {
  const sent: Record<string, string> = {
    authorization: `Bearer ${key}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": VERSION,
    "mcp-method": method,
  };
  if (typeof params.name === "string") sent["mcp-name"] = params.name;
  for (const [name, value] of Object.entries(headers)) {
    if (value === null) delete sent[name];
    else sent[name] = value;
  }
  return svc.handle(
    new Request(`${BASE}/svc/mcp`, {
      method: "POST",
      headers: sent,
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params: { ...params, _meta: META } }),
    }),
  );
}

async function withKey(scopes: string[], check: (svc: Svc, key: string) => Promise<void>): Promise<void> {
  const svc = notesSvc();
  try {
    const { key } = await mint(svc, "alice", scopes);
    await check(svc, key);
  } finally {
    await svc.close();
  }
}

test("server/discover answers the supported versions, both revisions, and the tools capability", async () => {
  await withKey(["notes:read"], async (svc, key) => {
    const res = await modern(svc, key, "server/discover");
    assert.equal(res.status, 200);
    const { id, result } = await res.json();
    assert.equal(id, 7);
    assert.equal(result.resultType, "complete");
    assert.equal(result.supportedVersions[0], VERSION);
    assert.ok(result.supportedVersions.includes("2025-11-25"));
    assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
    assert.equal(typeof result.ttlMs, "number");
    assert.equal(result._meta["io.modelcontextprotocol/serverInfo"].name, "@svc/agent-access");
  });
});

test("tools/list without a session lists the key's tools by name, cached privately", async () => {
  await withKey(["notes:write", "notes:read"], async (svc, key) => {
    const { result } = await (await modern(svc, key, "tools/list")).json();
    const names = result.tools.map((t: { name: string }) => t.name);
    assert.deepEqual(names, [...names].sort());
    assert.deepEqual(names, ["notes.broken", "notes.create", "notes.lies", "notes.list", "notes.missing"]);
    assert.equal(result.resultType, "complete");
    assert.equal(result.cacheScope, "private", "the list depends on the key");
  });
});

test("tools/call runs an intent; an encoded Mcp-Name is decoded before the comparison", async () => {
  await withKey(["notes:write"], async (svc, key) => {
    const params = { name: "notes.create", arguments: { title: "modern" } };
    const { result } = await (await modern(svc, key, "tools/call", params)).json();
    assert.equal(result.resultType, "complete");
    assert.deepEqual(result.structuredContent, { id: "n_modern", title: "modern", owner: "alice" });
    const encoded = `=?base64?${btoa("notes.create")}?=`;
    const again = await modern(svc, key, "tools/call", params, { "mcp-name": encoded });
    assert.equal(again.status, 200);
    assert.equal((await again.json()).result.isError, undefined);
  });
});

test("a header that does not match the body, or is missing, is 400 HeaderMismatch (-32020) and runs nothing", async () => {
  await withKey(["notes:write"], async (svc, key) => {
    const call = { name: "notes.create", arguments: { title: "nope" } };
    const cases: [string, Record<string, string | null>][] = [
      ["Mcp-Method differs", { "mcp-method": "tools/list" }],
      ["Mcp-Name differs", { "mcp-name": "notes.list" }],
      ["Mcp-Name missing", { "mcp-name": null }],
      ["MCP-Protocol-Version missing", { "mcp-protocol-version": null }],
      ["MCP-Protocol-Version differs from _meta", { "mcp-protocol-version": "2025-11-25" }],
    ];
    for (const [name, headers] of cases) {
      const res = await modern(svc, key, "tools/call", call, headers);
      assert.equal(res.status, 400, name);
      const body = await res.json();
      assert.equal(body.error.code, -32020, name);
      assert.equal(body.id, 7, name);
    }
    assert.deepEqual(await svc.violations(), [], "no call reached the intent runner");
  });
});

test("an unsupported version is 400 -32022 listing the supported ones; an unknown method is 404 -32601, redacted", async () => {
  await withKey(["notes:read"], async (svc, key) => {
    const version = "2099-01-01";
    const res = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "mcp-protocol-version": version,
          "mcp-method": "tools/list",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: { ...META, "io.modelcontextprotocol/protocolVersion": version } },
        }),
      }),
    );
    assert.equal(res.status, 400);
    const { error } = await res.json();
    assert.equal(error.code, -32022);
    assert.equal(error.data.requested, version);
    assert.ok(error.data.supported.includes(VERSION));

    const ping = await modern(svc, key, "ping");
    assert.equal(ping.status, 404, "ping is gone from 2026-07-28");
    assert.equal((await ping.json()).error.code, -32601);
    const pasted = await modern(svc, key, `tools/${key}`);
    assert.equal(pasted.status, 404);
    assert.ok(!(await pasted.text()).includes(key), "a key pasted as a method is not echoed");
  });
});

test("a modern request without its capabilities in _meta is refused as invalid params", async () => {
  await withKey(["notes:read"], async (svc, key) => {
    const res = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${key}`,
          "content-type": "application/json",
          "mcp-protocol-version": VERSION,
          "mcp-method": "tools/list",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: { "io.modelcontextprotocol/protocolVersion": VERSION } },
        }),
      }),
    );
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.code, -32602);
  });
});

test("a body that is not JSON is JSON-RPC's parse error -32700 (HTTP 400), in either revision", async () => {
  await withKey(["notes:read"], async (svc, key) => {
    for (const modernHeaders of [false, true]) {
      const res = await svc.handle(
        new Request(`${BASE}/svc/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${key}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
            ...(modernHeaders ? { "mcp-protocol-version": VERSION, "mcp-method": "tools/list" } : {}),
          },
          body: '{"jsonrpc": "2.0", "id": 1, "method": "tools/li',
        }),
      );
      assert.equal(res.status, 400);
      const body = await res.json();
      assert.equal(body.jsonrpc, "2.0");
      assert.equal(body.id, null);
      assert.equal(body.error.code, -32700);
    }
    const scalar = await svc.handle(
      new Request(`${BASE}/svc/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: "42",
      }),
    );
    assert.equal(scalar.status, 400);
    assert.equal((await scalar.json()).error.code, -32600, "JSON that is no JSON-RPC message is an invalid request");
  });
});

test("a 2025-11-25 client on the same endpoint still initializes and gets the tools by name", async () => {
  await withKey(["notes:write", "notes:read"], async (svc, key) => {
    const client = await connectMcp(BASE, key, (url, init) => svc.handle(new Request(url, init)));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(names, ["notes.broken", "notes.create", "notes.lies", "notes.list", "notes.missing"]);
    } finally {
      await client.close();
    }
  });
});

/** A request with these headers (beside the key and content type) and body. */
function raw(svc: Svc, key: string, headers: Record<string, string>, body: unknown): Promise<Response> {
  return svc.handle(
    new Request(`${BASE}/svc/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
}

test("the revision follows what the client sends: an initialize with an Mcp-Method header is 2025-11-25", async () => {
  await withKey(["notes:read"], async (svc, key) => {
    // mcp-remote 0.15.1's first request.
    const init = await raw(svc, key, { "mcp-method": "initialize" }, {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "mcp-remote", version: "0.15.1" },
      },
    });
    assert.equal(init.status, 200);
    assert.equal((await init.json()).result.protocolVersion, "2025-11-25");
    const list = await raw(svc, key, { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" }, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
    });
    assert.equal(list.status, 200);
    const { result } = await list.json();
    assert.ok(result.tools.some((t: { name: string }) => t.name === "notes.list"));
    assert.equal(result.resultType, undefined, "a 2025-11-25 answer, not a 2026-07-28 one");
  });
});
