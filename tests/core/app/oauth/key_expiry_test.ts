import { test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE, openAppStorage } from "../../../../core/app/storage/mod.ts";
import { migrate } from "../../../../core/db/mod.ts";
import { asAgent, asUser, mint, notesSvc } from "../../../fixtures/notes_svc.ts";

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
