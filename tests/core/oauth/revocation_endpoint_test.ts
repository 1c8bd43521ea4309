import { test } from "node:test";
import assert from "node:assert/strict";
import { authorizeAndExchange, oauthApp, REDIRECT, register, tokenRequest } from "../../fixtures/oauth_app.ts";

const REVOKE = "/svc/oauth/revoke";

test("revoking the access token (RFC 7009) revokes the key and ends the grant", async () => {
  const app = await oauthApp();
  try {
    const { clientId, tokens } = await authorizeAndExchange(app);
    const res = await tokenRequest(app.handle, { token: String(tokens.access_token), client_id: clientId }, REVOKE);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.notEqual((await app.keys.verify(String(tokens.access_token)))!.revokedAt, null);
    const refresh = await tokenRequest(app.handle, {
      grant_type: "refresh_token",
      refresh_token: String(tokens.refresh_token),
      client_id: clientId,
    });
    assert.equal((await refresh.json()).error, "invalid_grant");
  } finally {
    await app.close();
  }
});

test("revoking the refresh token ends the grant and revokes its key", async () => {
  const app = await oauthApp();
  try {
    const { clientId, tokens } = await authorizeAndExchange(app);
    const form = { token: String(tokens.refresh_token), client_id: clientId, token_type_hint: "refresh_token" };
    assert.equal((await tokenRequest(app.handle, form, REVOKE)).status, 200);
    assert.notEqual((await app.keys.verify(String(tokens.access_token)))!.revokedAt, null);
  } finally {
    await app.close();
  }
});

test("another client's token and an unknown token are answered 200 and left alone", async () => {
  const app = await oauthApp();
  try {
    const { tokens } = await authorizeAndExchange(app);
    const other = await register(app.handle, [REDIRECT], "Other");
    assert.equal(
      (await tokenRequest(app.handle, { token: String(tokens.access_token), client_id: other }, REVOKE)).status,
      200,
    );
    assert.equal((await app.keys.verify(String(tokens.access_token)))!.revokedAt, null);
    assert.equal((await tokenRequest(app.handle, { token: "svcr_nothing", client_id: other }, REVOKE)).status, 200);
  } finally {
    await app.close();
  }
});

test("a revocation without a token or a client gets the RFC's error", async () => {
  const app = await oauthApp();
  try {
    const noToken = await tokenRequest(app.handle, { client_id: "x" }, REVOKE);
    assert.equal(noToken.status, 400);
    assert.equal((await noToken.json()).error, "invalid_request");
    const noClient = await tokenRequest(app.handle, { token: "svcr_x" }, REVOKE);
    assert.equal(noClient.status, 401);
    assert.equal((await noClient.json()).error, "invalid_client");
  } finally {
    await app.close();
  }
});
