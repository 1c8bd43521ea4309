import { test } from "node:test";
import assert from "node:assert/strict";
import { withClientAddress } from "../../../mod.ts";
import { startRetention } from "../../../core/app/mod.ts";
import { oauthStorage } from "../../../core/oauth/mod.ts";
import {
  authorizeParams,
  consent,
  getAuthorize,
  oauthApp,
  ORIGIN,
  pkce,
  REDIRECT,
  register,
} from "../../fixtures/oauth_app.ts";

const HOUR = 60 * 60 * 1000;

async function registerWith(
  body: unknown,
  type = "application/json",
): Promise<{ status: number; body: Record<string, unknown> }> {
  const app = await oauthApp();
  try {
    const res = await app.handle(
      new Request(`${ORIGIN}/svc/oauth/register`, {
        method: "POST",
        headers: { "content-type": type },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
    const count = (await app.storage.db.execute("SELECT COUNT(*) AS n FROM app_oauth_clients")).rows[0].n;
    if (res.status !== 201) assert.equal(Number(count), 0, "a refused registration stores nothing");
    return { status: res.status, body: await res.json() };
  } finally {
    await app.close();
  }
}

test("a registration (RFC 7591) gets a public client: a client_id, no secret, the code and refresh grants", async () => {
  const { status, body } = await registerWith({
    redirect_uris: ["http://localhost:3000/cb", "cursor://anysphere.cursor-mcp/oauth/callback"],
    client_name: "Inspector",
    token_endpoint_auth_method: "client_secret_basic",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });
  assert.equal(status, 201);
  assert.match(String(body.client_id), /^svcc_/);
  assert.equal(body.client_secret, undefined);
  assert.equal(body.token_endpoint_auth_method, "none");
  assert.equal(body.client_name, "Inspector");
  assert.deepEqual(body.redirect_uris, ["http://localhost:3000/cb", "cursor://anysphere.cursor-mcp/oauth/callback"]);
  assert.equal(typeof body.client_id_issued_at, "number");
});

test("registrations with redirect URIs that could leak a code are refused with invalid_redirect_uri", async () => {
  for (
    const uri of [
      "http://evil.example/cb",
      "https://client.example/cb#frag",
      "javascript:alert(1)",
      "data:text/html,hi",
      "file:///etc/passwd",
      "https://user:pw@client.example/cb",
      "/relative/cb",
      42,
    ]
  ) {
    const { status, body } = await registerWith({ redirect_uris: [uri], client_name: "x" });
    assert.equal(status, 400, String(uri));
    assert.equal(body.error, "invalid_redirect_uri", String(uri));
  }
});

test("malformed registrations get invalid_client_metadata, never a 500", async () => {
  const cases: [unknown, string?][] = [
    [{}],
    [{ redirect_uris: [] }],
    [{ redirect_uris: "https://client.example/cb" }],
    [{ redirect_uris: ["https://client.example/cb"], grant_types: ["client_credentials"] }],
    [{ redirect_uris: ["https://client.example/cb"], response_types: ["token"] }],
    [{ redirect_uris: ["https://client.example/cb"], client_name: "x".repeat(201) }],
    ["not json"],
    [{ redirect_uris: ["https://client.example/cb"] }, "text/plain"],
    [{ redirect_uris: ["https://client.example/cb"], pad: "x".repeat(20_000) }],
  ];
  for (const [body, type] of cases) {
    const res = await registerWith(body, type);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 60));
    assert.equal(res.body.error, "invalid_client_metadata");
    assert.equal(typeof res.body.error_description, "string");
  }
});

test("registrations are limited per client address (429 with Retry-After); other addresses are not", async () => {
  const app = await oauthApp({ registrationsPerAddress: { limit: 2, windowMs: 60_000 } });
  try {
    const register = (address: string) =>
      app.handle(withClientAddress(
        new Request(`${ORIGIN}/svc/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://client.example/cb"] }),
        }),
        address,
      ));
    assert.equal((await register("203.0.113.7")).status, 201);
    assert.equal((await register("203.0.113.7")).status, 201);
    const refused = await register("203.0.113.7");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "30");
    assert.equal((await refused.json()).error, "invalid_request");
    assert.equal((await register("198.51.100.1")).status, 201);
    app.advance(30_000);
    assert.equal((await register("203.0.113.7")).status, 201, "a token is back after half the window");
    const count = (await app.storage.db.execute("SELECT COUNT(*) AS n FROM app_oauth_clients")).rows[0].n;
    assert.equal(Number(count), 4, "the refused registration stored nothing");
  } finally {
    await app.close();
  }
});

test("registrations are limited per IPv6 /64, not per address: 2,000 from one /64 get the limit's 20", async () => {
  const app = await oauthApp();
  try {
    let created = 0;
    for (let i = 0; i < 2000; i++) {
      const address = `2001:db8:7:9:${(i >> 16).toString(16)}:${(i & 0xffff).toString(16)}:0:1`;
      const res = await app.handle(withClientAddress(
        new Request(`${ORIGIN}/svc/oauth/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: ["https://client.example/cb"] }),
        }),
        address,
      ));
      if (res.status === 201) created++;
      else assert.equal(res.status, 429);
      await res.body?.cancel();
    }
    assert.equal(created, 20);
    const count = (await app.storage.db.execute("SELECT COUNT(*) AS n FROM app_oauth_clients")).rows[0].n;
    assert.equal(Number(count), 20);
  } finally {
    await app.close();
  }
});

test("a registered client that completes no authorization within a day is purged by the retention", async () => {
  const app = await oauthApp();
  try {
    const idle = await register(app.handle, [REDIRECT], "Idle");
    const used = await register(app.handle, [REDIRECT], "Used");
    await consent(app.handle, "alice", authorizeParams(used, (await pkce()).challenge));
    app.advance(23 * HOUR);
    const recent = await register(app.handle, [REDIRECT], "Recent");
    app.advance(2 * HOUR); // idle and used are 25 h old, recent 2 h
    const retention = startRetention({
      storage: app.storage,
      oauth: oauthStorage(app.storage.db),
      log: () => {},
      now: app.now,
    });
    await retention.close(); // waits for the purge made at start
    const oauth = oauthStorage(app.storage.db);
    assert.equal(await oauth.findClient(idle), null, "never used: purged");
    assert.notEqual(await oauth.findClient(used), null, "a code was issued to it: kept");
    assert.notEqual(await oauth.findClient(recent), null, "younger than a day: kept");
    const page = await getAuthorize(app.handle, "alice", authorizeParams(idle, (await pkce()).challenge));
    assert.equal(page.status, 400, "the purged client is unknown");
  } finally {
    await app.close();
  }
});
