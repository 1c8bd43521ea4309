import { test } from "node:test";
import assert from "node:assert/strict";
import { isOAuthDiscoveryPath, withSvc } from "../../../mod.ts";
import { BASE, notesSvc, SCOPES } from "../../fixtures/notes_svc.ts";

const get = (handle: (req: Request) => Promise<Response> | Response, path: string, headers: HeadersInit = {}) =>
  handle(new Request(BASE + path, { headers }));

test("the protected resource metadata of /svc/mcp names /svc as its authorization server and the app's scopes", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const res = await get(svc.handle, "/.well-known/oauth-protected-resource/svc/mcp");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await res.json(), {
      resource: `${BASE}/svc/mcp`,
      authorization_servers: [`${BASE}/svc`],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ["header"],
      resource_name: "Agent access",
    });
    for (
      const [path, resource] of [
        ["/.well-known/oauth-protected-resource/svc", "/svc"],
        ["/.well-known/oauth-protected-resource/svc/agent/run", "/svc/agent/run"],
        ["/.well-known/oauth-protected-resource/svc/agent/intents", "/svc/agent/intents"],
      ]
    ) {
      const doc = await (await get(svc.handle, path)).json();
      assert.equal(doc.resource, BASE + resource, path);
    }
  } finally {
    await svc.close();
  }
});

test("the authorization server metadata is served where the MCP SDK client looks for the issuer /svc", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    for (const path of ["/.well-known/oauth-authorization-server/svc"]) {
      const res = await get(svc.handle, path);
      assert.equal(res.status, 200, path);
      const doc = await res.json();
      assert.equal(doc.issuer, `${BASE}/svc`);
      assert.equal(doc.authorization_endpoint, `${BASE}/svc/oauth/authorize`);
      assert.equal(doc.token_endpoint, `${BASE}/svc/oauth/token`);
      assert.equal(doc.registration_endpoint, `${BASE}/svc/oauth/register`);
      assert.equal(doc.revocation_endpoint, `${BASE}/svc/oauth/revoke`);
      assert.deepEqual(doc.code_challenge_methods_supported, ["S256"]);
      assert.deepEqual(doc.response_types_supported, ["code"]);
      assert.deepEqual(doc.grant_types_supported, ["authorization_code", "refresh_token"]);
      assert.deepEqual(doc.token_endpoint_auth_methods_supported, ["none"]);
      assert.equal(doc.authorization_response_iss_parameter_supported, true);
      assert.equal(doc.client_id_metadata_document_supported, true);
    }
    // Not an OpenID provider: no ID tokens, so no OpenID configuration.
    assert.equal((await get(svc.handle, "/.well-known/openid-configuration/svc")).status, 404);
    assert.equal((await get(svc.handle, "/.well-known/openid-configuration")).status, 404);
    assert.equal((await get(svc.handle, "/svc/.well-known/openid-configuration")).status, 404);
  } finally {
    await svc.close();
  }
});

test("publicUrl sets the origin of every metadata URL", async () => {
  const svc = notesSvc({ oauth: { publicUrl: "https://notes.example.com/ignored/path" } });
  try {
    const doc = await (await svc.handle(
      new Request("https://notes.example.com/.well-known/oauth-authorization-server/svc"),
    )).json();
    assert.equal(doc.issuer, "https://notes.example.com/svc");
    assert.equal(doc.token_endpoint, "https://notes.example.com/svc/oauth/token");
  } finally {
    await svc.close();
  }
});

test("401s of /svc/mcp and /svc/agent/* carry the Bearer challenge with resource_metadata and scope", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const mcp = await svc.handle(new Request(`${BASE}/svc/mcp`, { method: "POST", body: "{}" }));
    assert.equal(mcp.status, 401);
    assert.equal(
      mcp.headers.get("www-authenticate"),
      `Bearer realm="svc", resource_metadata="${BASE}/.well-known/oauth-protected-resource/svc/mcp", ` +
        `scope="notes:read notes:write admin"`,
    );
    assert.equal((await mcp.json()).error.data.code, "UNAUTHORIZED", "error.data holds the contract's code");
    const agent = await get(svc.handle, "/svc/agent/intents", { authorization: "Bearer svc_live_" + "x".repeat(40) });
    assert.equal(agent.status, 401);
    assert.equal(
      agent.headers.get("www-authenticate"),
      `Bearer realm="svc", resource_metadata="${BASE}/.well-known/oauth-protected-resource/svc", ` +
        `scope="notes:read notes:write admin", error="invalid_token"`,
    );
    const keys = await get(svc.handle, "/svc/keys");
    assert.equal(keys.status, 401);
    assert.equal(keys.headers.get("www-authenticate"), null, "a user route's 401 gets no Bearer challenge");
  } finally {
    await svc.close();
  }
});

test("without the oauth option nothing is served at the discovery URLs and the challenge is unchanged", async () => {
  const svc = notesSvc();
  try {
    assert.equal((await get(svc.handle, "/.well-known/oauth-protected-resource/svc/mcp")).status, 404);
    assert.equal((await get(svc.handle, "/svc/oauth/token")).status, 404);
    const res = await svc.handle(new Request(`${BASE}/svc/mcp`, { method: "POST", body: "{}" }));
    assert.equal(res.headers.get("www-authenticate"), 'Bearer realm="svc"');
  } finally {
    await svc.close();
  }
});

test("withSvc sends the discovery URLs to the toolkit and other /.well-known paths to the app", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const handler = withSvc(svc, () => new Response("app", { status: 200 }));
    const doc = await get(handler, "/.well-known/oauth-protected-resource/svc/mcp");
    assert.equal((await doc.json()).resource, `${BASE}/svc/mcp`);
    assert.equal(await (await get(handler, "/.well-known/security.txt")).text(), "app");
    assert.equal(await (await get(handler, "/.well-known/oauth-protected-resource/elsewhere")).text(), "app");
    assert.equal(isOAuthDiscoveryPath("/.well-known/oauth-authorization-server/svc"), true);
    assert.equal(isOAuthDiscoveryPath("/.well-known/oauth-authorization-server/other"), false);
  } finally {
    await svc.close();
  }
});

test("the discovery URLs answer GET only, and CORS preflights", async () => {
  const svc = notesSvc({ oauth: {} });
  try {
    const post = await svc.handle(
      new Request(`${BASE}/.well-known/oauth-authorization-server/svc`, { method: "POST" }),
    );
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET, HEAD");
    const preflight = await svc.handle(new Request(`${BASE}/svc/oauth/token`, { method: "OPTIONS" }));
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "*");
  } finally {
    await svc.close();
  }
});
