// The official MCP TypeScript SDK client, with its OAuth client provider, against an app with `oauth` on:
// discovery from the 401, registration (RFC 7591), authorization with consent (posted by the test as the
// user's browser would), the code exchange, tools listed and called with the issued key; then the user
// revokes the key and the client's next call needs a new consent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { asUser, BASE, notesSvc } from "../../fixtures/notes_svc.ts";
import { hiddenFields } from "../../fixtures/oauth_app.ts";
import type { Svc } from "../../../mod.ts";

// Untyped under deno check (the SDK types its subpaths through typesVersions); see tests/fixtures/mcp_client.ts.
const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
const { UnauthorizedError } = await import("@modelcontextprotocol/sdk/client/auth.js");

const REDIRECT = "http://127.0.0.1:5555/callback";

/**
 * An OAuthClientProvider that keeps everything in memory and records where it was sent to authorize; with
 * `keepRefreshToken: false` it drops refresh tokens (see the step-up test).
 */
function memoryProvider({ keepRefreshToken = true } = {}) {
  const saved: Record<string, unknown> = {};
  return {
    saved,
    authorizationUrl: null as URL | null,
    get redirectUrl() {
      return REDIRECT;
    },
    get clientMetadata() {
      return {
        client_name: "SDK Test Client",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      };
    },
    state: () => "sdk-state",
    clientInformation: () => saved.client,
    saveClientInformation(info: unknown) {
      saved.client = info;
    },
    tokens: () => saved.tokens,
    saveTokens(tokens: unknown) {
      const { refresh_token: _, ...rest } = tokens as { refresh_token?: string };
      saved.tokens = keepRefreshToken ? tokens : rest;
    },
    redirectToAuthorization(url: URL) {
      this.authorizationUrl = url;
    },
    saveCodeVerifier(verifier: string) {
      saved.verifier = verifier;
    },
    codeVerifier: () => saved.verifier as string,
    invalidateCredentials(scope: string) {
      if (scope === "all" || scope === "tokens") delete saved.tokens;
      if (scope === "all" || scope === "client") delete saved.client;
    },
  };
}

/** The user's browser: opens the authorization URL signed in, allows what is asked (or `granted`), returns the code. */
async function consentAsBrowser(svc: Svc, url: URL, user: string, granted?: string[]): Promise<string> {
  const page = await svc.handle(new Request(url, { headers: { "x-user": user } }));
  assert.equal(page.status, 200);
  const fields = hiddenFields(await page.text());
  const form = new URLSearchParams(fields);
  form.set("decision", "allow");
  for (const scope of granted ?? (fields.scope ?? "").split(" ")) form.append("granted_scope", scope);
  const res = await svc.handle(
    new Request(`${BASE}/svc/oauth/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-user": user },
      body: form,
    }),
  );
  assert.equal(res.status, 302);
  const back = new URL(res.headers.get("location")!);
  assert.equal(back.origin + back.pathname, REDIRECT);
  assert.equal(back.searchParams.get("state"), "sdk-state");
  assert.equal(back.searchParams.get("iss"), `${BASE}/svc`);
  return back.searchParams.get("code")!;
}

test("the MCP SDK client discovers, registers, is authorized by consent and calls a tool with the issued key", async () => {
  const svc = notesSvc({ oauth: {} });
  const fetch = (url: string | URL, init?: RequestInit) => svc.handle(new Request(url, init));
  const provider = memoryProvider();
  const url = new URL(`${BASE}/svc/mcp`);
  try {
    const first = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
    await assert.rejects(
      first.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch })),
      UnauthorizedError,
    );
    const authorizationUrl = provider.authorizationUrl!;
    assert.equal(authorizationUrl.origin + authorizationUrl.pathname, `${BASE}/svc/oauth/authorize`);
    assert.equal(authorizationUrl.searchParams.get("code_challenge_method"), "S256");
    assert.equal(authorizationUrl.searchParams.get("resource"), `${BASE}/svc/mcp`);
    assert.equal(authorizationUrl.searchParams.get("scope"), "notes:read notes:write admin");
    assert.match((provider.saved.client as { client_id: string }).client_id, /^svcc_/, "registered by DCR");

    const code = await consentAsBrowser(svc, authorizationUrl, "alice");
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    await transport.finishAuth(code);
    const tokens = provider.saved.tokens as { access_token: string; refresh_token: string };
    assert.match(tokens.access_token, /^svc_live_/);

    const client = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "admin.wipe"), "every consented scope is usable");
    const created = await client.callTool({ name: "notes.create", arguments: { title: "from oauth" } });
    assert.deepEqual(
      JSON.parse((created as { content: { text: string }[] }).content[0].text),
      { id: "n_from oauth", title: "from oauth", owner: "alice" },
    );

    // The key is alice's, listed with the client's name and its expiry.
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys.length, 1);
    assert.equal(keys[0].name, "SDK Test Client");
    assert.ok(Date.parse(keys[0].expiresAt) > Date.now());

    // Alice revokes it: the client's next call is refused, and its refresh token no longer works either.
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${keys[0].id}`)).status, 200);
    provider.authorizationUrl = null;
    await assert.rejects(client.listTools());
    assert.ok(provider.authorizationUrl, "the client is sent back to consent: the grant has ended");
    assert.equal(provider.saved.tokens, undefined, "the SDK dropped the tokens the server refused");
    await client.close().catch(() => {});

    // Consent again: a new key works.
    const again = await consentAsBrowser(svc, provider.authorizationUrl!, "alice");
    const retransport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    await retransport.finishAuth(again);
    const back = new Client({ name: "sdk-oauth-test", version: "1.0.0" });
    await back.connect(retransport);
    assert.ok((await back.listTools()).tools.length > 0);
    await back.close();
  } finally {
    await svc.close();
  }
});

test("scope step-up end to end: a token without notes:write is challenged, re-authorized wider, and the call runs", async () => {
  const svc = notesSvc({ oauth: {} });
  const fetch = (url: string | URL, init?: RequestInit) => svc.handle(new Request(url, init));
  // The SDK (1.x) answers a 403 insufficient_scope by refreshing when it holds a refresh token, which cannot widen a
  // grant (RFC 6749 §6), and then gives up (typescript-sdk#2255); this client keeps none, as SEP-2350 clients do.
  const provider = memoryProvider({ keepRefreshToken: false });
  const url = new URL(`${BASE}/svc/mcp`);
  try {
    await assert.rejects(
      new Client({ name: "sdk-step-up", version: "1.0.0" }).connect(
        new StreamableHTTPClientTransport(url, { authProvider: provider, fetch }),
      ),
      UnauthorizedError,
    );
    // The user grants less than asked: notes:read only.
    const narrow = await consentAsBrowser(svc, provider.authorizationUrl!, "alice", ["notes:read"]);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    await transport.finishAuth(narrow);
    const client = new Client({ name: "sdk-step-up", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    assert.ok(!tools.some((t) => t.name === "notes.create"), "tools/list shows only what the token may call");

    // The call needs notes:write: the server's 403 challenge sends the client back to authorize, with the wider scope.
    provider.authorizationUrl = null;
    await assert.rejects(client.callTool({ name: "notes.create", arguments: { title: "wider" } }), UnauthorizedError);
    const wider = provider.authorizationUrl!;
    assert.ok(wider, "the client was sent to authorize again");
    assert.equal(wider.searchParams.get("scope"), "notes:read notes:write");
    await client.close().catch(() => {});

    const code = await consentAsBrowser(svc, wider, "alice");
    const retransport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch });
    await retransport.finishAuth(code);
    const again = new Client({ name: "sdk-step-up", version: "1.0.0" });
    await again.connect(retransport);
    const created = await again.callTool({ name: "notes.create", arguments: { title: "wider" } });
    assert.equal(created.isError, undefined);
    assert.deepEqual(created.structuredContent, { id: "n_wider", title: "wider", owner: "alice" });
    await again.close();

    const kinds = (await svc.violations()).map((v) => v.kind);
    assert.deepEqual(kinds, ["FORBIDDEN_SCOPE"], "the refusal that started the step-up is recorded");
  } finally {
    await svc.close();
  }
});
