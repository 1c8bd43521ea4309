import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE, openAppStorage } from "../../../core/app/storage/mod.ts";
import { migrate } from "../../../core/db/mod.ts";
import { asAgent, asUser, intents, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { createSvcWith } from "../../../core/app/mod.ts";
import { authorizeParams, consent, pkce, REDIRECT, register, tokenRequest } from "../../fixtures/oauth_app.ts";

test("an expired key is refused with 401 like a revoked one and recorded as EXPIRED_KEY", async () => {
  const db = createClient({ url: ":memory:" });
  const svc = notesSvc({ storage: db });
  try {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    // Before the key's first use (a verified key is cached in process, up to 1 s on an injected client).
    await db.execute({
      sql: "UPDATE app_keys SET expires_at = ? WHERE id = ?",
      args: ["2000-01-01T00:00:00.000Z", id],
    });
    const res = await asAgent(svc, key, "GET", "/svc/agent/intents");
    assert.equal(res.status, 401);
    assert.equal((await res.json()).error.code, "UNAUTHORIZED");
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "EXPIRED_KEY");
    assert.equal(violation.severity, "info");
    assert.equal(violation.metadata.expiresAt, "2000-01-01T00:00:00.000Z");
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys[0].expiresAt, "2000-01-01T00:00:00.000Z", "the listing says when it expired");
    assert.equal(keys[0].revokedAt, null, "expiry is not a revocation");
  } finally {
    await svc.close();
    db.close();
  }
});

test("a key whose expiry is ahead still works", async () => {
  const db = createClient({ url: ":memory:" });
  const svc = notesSvc({ storage: db });
  try {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    await db.execute({
      sql: "UPDATE app_keys SET expires_at = ? WHERE id = ?",
      args: ["2999-01-01T00:00:00.000Z", id],
    });
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 200);
  } finally {
    await svc.close();
    db.close();
  }
});

test("keys stored before the expiry migration never expire", async () => {
  const db = createClient({ url: ":memory:" });
  try {
    await migrate(db, APP_MIGRATIONS_TABLE, APP_MIGRATIONS.slice(0, 5));
    await db.execute(
      `INSERT INTO app_keys (id, user_id, name, scopes, agent_id, hash, start, created_at)
       VALUES ('k1', 'alice', 'old', '[]', 'alice', 'h1', 'svc_live_abc', '2025-01-01T00:00:00.000Z')`,
    );
    const storage = await openAppStorage(db);
    const [key] = await storage.listKeys("alice");
    assert.equal(key.expiresAt, null);
    await storage.close();
  } finally {
    db.close();
  }
});

test("an OAuth access token works until its expiry on the app's clock, then is refused as EXPIRED_KEY", async () => {
  let clock = Date.parse("2026-03-01T12:00:00Z");
  const svc = createSvcWith({
    userResolver: (req) => req.headers.get("x-user"),
    scopes: ["notes:read", "notes:write", "admin"],
    intents,
    logger: () => {},
    oauth: { accessTokenTtlSeconds: 600 },
  }, { now: () => clock });
  try {
    const handle = (req: Request) => svc.handle(req);
    const clientId = await register(handle);
    const { verifier, challenge } = await pkce();
    const back = await consent(handle, "alice", authorizeParams(clientId, challenge), ["notes:read"]);
    const tokens = await (await tokenRequest(handle, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: clientId,
    })).json();
    assert.equal((await asAgent(svc, tokens.access_token, "GET", "/svc/agent/intents")).status, 200);
    clock += 599_000;
    assert.equal((await asAgent(svc, tokens.access_token, "GET", "/svc/agent/intents")).status, 200);
    clock += 1_000;
    const expired = await asAgent(svc, tokens.access_token, "GET", "/svc/agent/intents");
    assert.equal(expired.status, 401);
    assert.match(expired.headers.get("www-authenticate")!, /error="invalid_token"/);
    const [violation] = await svc.violations();
    assert.equal(violation.kind, "EXPIRED_KEY");
    const refreshed = await tokenRequest(handle, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    assert.equal(refreshed.status, 200, "an expired access token is refreshed: expiry is not revocation");
    const next = await refreshed.json();
    assert.equal((await asAgent(svc, next.access_token, "GET", "/svc/agent/intents")).status, 200);
  } finally {
    await svc.close();
  }
});
