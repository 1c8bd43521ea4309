import { test } from "node:test";
import assert from "node:assert/strict";
import {
  authorizeAndExchange,
  authorizeParams,
  consent,
  type OAuthApp,
  oauthApp,
  ORIGIN,
  pkce,
  REDIRECT,
  register,
  tokenRequest,
} from "../../fixtures/oauth_app.ts";

async function withApp(check: (app: OAuthApp) => Promise<void>, config = {}): Promise<void> {
  const app = await oauthApp(config);
  try {
    await check(app);
  } finally {
    await app.close();
  }
}

/** A code for alice, ready to exchange. */
async function codeFor(app: OAuthApp) {
  const clientId = await register(app.handle);
  const { verifier, challenge } = await pkce();
  const back = await consent(app.handle, "alice", authorizeParams(clientId, challenge));
  const exchange = {
    grant_type: "authorization_code",
    code: back.searchParams.get("code")!,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  };
  return { clientId, verifier, exchange };
}

const errorOf = async (res: Response) => ({ status: res.status, ...(await res.json()) });

test("a code and its verifier buy an access token that is an agent key of the user, named after the client", async () => {
  await withApp(async (app) => {
    const { tokens } = await authorizeAndExchange(app);
    assert.equal(tokens.token_type, "Bearer");
    assert.equal(tokens.expires_in, 3600);
    assert.equal(tokens.scope, "notes:read notes:write");
    assert.match(String(tokens.access_token), /^svc_live_[A-Za-z0-9]{32,}$/);
    assert.match(String(tokens.refresh_token), /^svcr_/);
    const key = await app.keys.verify(String(tokens.access_token));
    assert.ok(key);
    assert.equal(key.userId, "alice");
    assert.equal(key.agentId, "alice", "agentId by the usual rule: the user's own");
    assert.equal(key.name, "Test Client");
    assert.deepEqual(key.scopes, ["notes:read", "notes:write"]);
    assert.equal(key.expiresAt, new Date(app.now() + 3600_000).toISOString());
    const [listed] = await app.keys.list("alice");
    assert.equal(listed.expiresAt, key.expiresAt, "the listing shows when it expires");
  });
});

test("the token answer is not cached and is readable cross-origin", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    const res = await tokenRequest(app.handle, exchange);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
  });
});

test("accessTokenTtlSeconds sets the key's expiry", async () => {
  await withApp(async (app) => {
    const { tokens } = await authorizeAndExchange(app);
    assert.equal(tokens.expires_in, 120);
    const key = await app.keys.verify(String(tokens.access_token));
    assert.equal(key!.expiresAt, new Date(app.now() + 120_000).toISOString());
  }, { accessTokenTtlSeconds: 120 });
});

test("a scope the user unchecked is not in the token", async () => {
  await withApp(async (app) => {
    const { tokens } = await authorizeAndExchange(app, "alice", ["notes:read"]);
    assert.equal(tokens.scope, "notes:read");
    assert.deepEqual((await app.keys.verify(String(tokens.access_token)))!.scopes, ["notes:read"]);
  });
});

test("a code is good once: a replay is invalid_grant and ends the grant it produced (its key is revoked)", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    const first = await (await tokenRequest(app.handle, exchange)).json();
    const replay = await tokenRequest(app.handle, exchange);
    assert.deepEqual(await errorOf(replay), {
      status: 400,
      error: "invalid_grant",
      error_description: "The code was already used",
    });
    const key = (await app.keys.verify(first.access_token))!;
    assert.notEqual(key.revokedAt, null);
    assert.deepEqual(app.violations.map((v) => [v.kind, v.severity, v.keyId, v.metadata.token]), [
      ["OAUTH_TOKEN_REPLAYED", "severe", key.id, "authorization_code"],
    ]);
    const refresh = await tokenRequest(app.handle, {
      grant_type: "refresh_token",
      refresh_token: first.refresh_token,
      client_id: exchange.client_id,
    });
    assert.equal((await refresh.json()).error, "invalid_grant");
  });
});

test("a code expires 60 s after it was issued, and an expired code changes nothing", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    app.advance(60_000);
    const res = await tokenRequest(app.handle, exchange);
    assert.deepEqual(await errorOf(res), {
      status: 400,
      error: "invalid_grant",
      error_description: "The code has expired",
    });
    assert.deepEqual(await app.keys.list("alice"), [], "no key was minted");
  });
});

test("a code one second before its expiry is still exchanged", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    app.advance(59_000);
    assert.equal((await tokenRequest(app.handle, exchange)).status, 200);
  });
});

test("a wrong verifier, another redirect_uri, another client or another resource is invalid and burns nothing", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    const other = await register(app.handle, [REDIRECT], "Other");
    const cases: [Record<string, string>, string][] = [
      [{ code_verifier: (await pkce()).verifier }, "invalid_grant"],
      [{ code_verifier: "short" }, "invalid_grant"],
      [{ redirect_uri: REDIRECT + "/" }, "invalid_grant"],
      [{ client_id: other }, "invalid_grant"],
      [{ client_id: "nobody" }, "invalid_client"],
      [{ resource: `${ORIGIN}/elsewhere` }, "invalid_target"],
      [{ code: "svca_unknown" }, "invalid_grant"],
    ];
    for (const [change, error] of cases) {
      const res = await tokenRequest(app.handle, { ...exchange, ...change });
      const body = await res.json();
      assert.equal(body.error, error, JSON.stringify(change));
      assert.equal(res.status, error === "invalid_client" ? 401 : 400);
      assert.equal(typeof body.error_description, "string");
    }
    assert.deepEqual(await app.keys.list("alice"), []);
    assert.equal((await tokenRequest(app.handle, exchange)).status, 200, "the code still works for its owner");
  });
});

test("malformed token requests get the RFC's errors, never a 500", async () => {
  await withApp(async (app) => {
    const { exchange } = await codeFor(app);
    const json = await app.handle(
      new Request(`${ORIGIN}/svc/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(exchange),
      }),
    );
    assert.equal((await errorOf(json)).error, "invalid_request");
    assert.equal(
      (await (await tokenRequest(app.handle, { ...exchange, grant_type: "password" })).json()).error,
      "unsupported_grant_type",
    );
    const { code_verifier: _, ...noVerifier } = exchange;
    assert.equal((await (await tokenRequest(app.handle, noVerifier)).json()).error, "invalid_request");
    const twice = new URLSearchParams(exchange);
    twice.append("code", "again");
    const dup = await app.handle(
      new Request(`${ORIGIN}/svc/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: twice,
      }),
    );
    assert.equal((await errorOf(dup)).error, "invalid_request");
    const get = await app.handle(new Request(`${ORIGIN}/svc/oauth/token`));
    assert.equal(get.status, 405);
    assert.equal(get.headers.get("allow"), "POST, OPTIONS");
    const huge = await tokenRequest(app.handle, { ...exchange, pad: "x".repeat(70_000) });
    assert.equal((await errorOf(huge)).error, "invalid_request");
  });
});

test("a refresh token buys a new key and a new refresh token; the old key stops at once", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app);
    app.advance(10 * 60_000);
    const res = await tokenRequest(app.handle, {
      grant_type: "refresh_token",
      refresh_token: String(tokens.refresh_token),
      client_id: clientId,
    });
    assert.equal(res.status, 200);
    const next = await res.json();
    assert.notEqual(next.access_token, tokens.access_token);
    assert.notEqual(next.refresh_token, tokens.refresh_token);
    const fresh = await app.keys.verify(next.access_token);
    assert.equal(fresh!.revokedAt, null);
    assert.equal(fresh!.expiresAt, new Date(app.now() + 3600_000).toISOString());
    assert.notEqual((await app.keys.verify(String(tokens.access_token)))!.revokedAt, null);
  });
});

test("a refresh may narrow the scopes but never widen them", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app, "alice", ["notes:read"]);
    const refresh = { grant_type: "refresh_token", refresh_token: String(tokens.refresh_token), client_id: clientId };
    const wider = await tokenRequest(app.handle, { ...refresh, scope: "notes:read admin" });
    assert.equal((await wider.json()).error, "invalid_scope");
    const same = await (await tokenRequest(app.handle, { ...refresh, scope: "notes:read" })).json();
    assert.equal(same.scope, "notes:read");
  });
});

test("a reused refresh token ends the grant: the key in force is revoked and the newest refresh token dies", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app);
    const first = { grant_type: "refresh_token", refresh_token: String(tokens.refresh_token), client_id: clientId };
    const rotated = await (await tokenRequest(app.handle, first)).json();
    const reuse = await tokenRequest(app.handle, first);
    assert.equal(reuse.status, 400);
    assert.equal((await reuse.json()).error, "invalid_grant");
    const key = (await app.keys.verify(rotated.access_token))!;
    assert.notEqual(key.revokedAt, null, "the thief's key is revoked too");
    assert.deepEqual(app.violations.map((v) => [v.kind, v.userId, v.keyId, v.metadata.token]), [
      ["OAUTH_TOKEN_REPLAYED", "alice", key.id, "refresh_token"],
    ]);
    const after = await tokenRequest(app.handle, { ...first, refresh_token: rotated.refresh_token });
    assert.equal((await after.json()).error, "invalid_grant");
  });
});

test("a refresh token presented by another client is refused and stays good for its own", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app);
    const other = await register(app.handle, [REDIRECT], "Other");
    const refresh = { grant_type: "refresh_token", refresh_token: String(tokens.refresh_token), client_id: other };
    assert.equal((await (await tokenRequest(app.handle, refresh)).json()).error, "invalid_grant");
    assert.equal((await tokenRequest(app.handle, { ...refresh, client_id: clientId })).status, 200);
  });
});

test("revoking the access token (as the user does in /svc/keys) ends the grant: its refresh token dies", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app);
    const key = await app.keys.verify(String(tokens.access_token));
    await app.keys.revoke("alice", key!.id);
    const res = await tokenRequest(app.handle, {
      grant_type: "refresh_token",
      refresh_token: String(tokens.refresh_token),
      client_id: clientId,
    });
    assert.equal((await res.json()).error, "invalid_grant");
    assert.equal((await app.keys.list("alice")).filter((k) => k.revokedAt === null).length, 0, "no key was minted");
  });
});

test("an expired refresh token is refused", async () => {
  await withApp(async (app) => {
    const { clientId, tokens } = await authorizeAndExchange(app);
    app.advance(3600_000);
    const res = await tokenRequest(app.handle, {
      grant_type: "refresh_token",
      refresh_token: String(tokens.refresh_token),
      client_id: clientId,
    });
    assert.equal((await res.json()).error, "invalid_grant");
  }, { refreshTokenTtlSeconds: 3600 });
});

test("a user id the keys refuse (too long, or a dot segment) is refused with the RFC's error, never a 500", async () => {
  await withApp(async (app) => {
    const clientId = await register(app.handle);
    const { verifier, challenge } = await pkce();
    const long = await app.handle(
      new Request(`${ORIGIN}/svc/oauth/authorize?${new URLSearchParams(authorizeParams(clientId, challenge))}`, {
        headers: { "x-user": "u".repeat(201) },
      }),
    );
    assert.equal(long.status, 400);
    assert.equal((await long.json()).error, "invalid_request");
    const back = await consent(app.handle, "..", authorizeParams(clientId, challenge));
    const res = await tokenRequest(app.handle, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    });
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error, "invalid_request");
  });
});
