import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@libsql/client";
import { migrate, schemaVersion } from "../../../../core/db/mod.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "../../../../core/app/storage/mod.ts";
import { openAppStorage } from "../../../../core/app/storage/mod.ts";
import { mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";

describe("app storage", () => {
  test("migrates an empty database to the newest schema, once", async () => {
    const client = createClient({ url: ":memory:" });
    assert.equal(await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS), APP_MIGRATIONS.length);
    assert.equal(await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS), APP_MIGRATIONS.length);
    const tables = await client.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'app_%'");
    assert.deepEqual(tables.rows.map((r) => r.name).sort(), [
      "app_activity",
      "app_agent_claims",
      "app_approvals",
      "app_cloud_policy",
      "app_key_changes",
      "app_keys",
      "app_oauth_clients",
      "app_oauth_codes",
      "app_oauth_grants",
      "app_oauth_refresh_tokens",
      "app_oauth_settings",
      "app_outbox",
      "app_revocation_cursor",
      "app_violations",
    ]);
    client.close();
  });

  test("refuses a database whose schema is newer than the code, with a clear message", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
    await client.execute({
      sql: `INSERT INTO ${APP_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, 'from the future', '')`,
      args: [APP_MIGRATIONS.length + 1],
    });
    await assert.rejects(openAppStorage(client), /newer than this build knows/);
    const svc = notesSvc({ storage: client });
    await assert.rejects(svc.ready, /newer than this build knows/);
    assert.equal(
      (await svc.handle(new Request("http://x/svc/keys"))).status,
      503,
      "requests fail closed: STORAGE_UNAVAILABLE",
    );
    client.close();
  });

  test("applies a new migration on top of an existing database", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
    const next = [...APP_MIGRATIONS, {
      version: APP_MIGRATIONS.length + 1,
      name: "test column",
      statements: ["ALTER TABLE app_keys ADD COLUMN note TEXT"],
    }];
    assert.equal(await migrate(client, APP_MIGRATIONS_TABLE, next), next.length);
    assert.equal(await schemaVersion(client, APP_MIGRATIONS_TABLE), next.length);
    client.close();
  });

  test("rolls a failing migration back whole", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
    const broken = [...APP_MIGRATIONS, {
      version: APP_MIGRATIONS.length + 1,
      name: "half broken",
      statements: ["CREATE TABLE app_half (id TEXT)", "THIS IS NOT SQL"],
    }];
    await assert.rejects(migrate(client, APP_MIGRATIONS_TABLE, broken));
    const half = await client.execute("SELECT name FROM sqlite_master WHERE name = 'app_half'");
    assert.equal(half.rows.length, 0);
    assert.equal(await schemaVersion(client, APP_MIGRATIONS_TABLE), APP_MIGRATIONS.length);
    client.close();
  });

  test("upgrades violations queued for the cloud under schema 2, keeping their reports", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, APP_MIGRATIONS_TABLE, APP_MIGRATIONS.slice(0, 2));
    await client.batch([
      `INSERT INTO app_violations (id, key_id, user_id, intent, kind, severity, message, metadata, created_at)
       VALUES ('v1', 'k1', 'alice', 'notes.create', 'FORBIDDEN_SCOPE', 'warning', 'no', '{"a":1}', '2025-01-01T00:00:00.000Z')`,
      "INSERT INTO app_outbox (kind, ref, created_at) VALUES ('violation', 'v1', '2025-01-01T00:00:00.000Z')",
    ], "write");
    const storage = await openAppStorage(client);
    const [item] = await storage.outboxHead(10);
    assert.deepEqual(JSON.parse(item.body!), {
      id: "v1",
      keyId: "k1",
      userId: "alice",
      intent: "notes.create",
      kind: "FORBIDDEN_SCOPE",
      severity: "warning",
      message: "no",
      metadata: { a: 1 },
      createdAt: "2025-01-01T00:00:00.000Z",
    });
    assert.equal((await storage.listViolations({ limit: 5 }))[0].id, "v1", "the violation itself is kept");
    client.close();
  });

  test("keeps keys in a file: database across restarts, in WAL mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-app-"));
    const url = `file:${join(dir, "app.db")}`;
    try {
      const first = notesSvc({ storage: url });
      const { key } = await mint(first, "alice", ["notes:read"]);
      await first.close();
      const second = notesSvc({ storage: url });
      assert.equal((await run(second, key, "notes.list")).status, 200);
      await second.close();
      const client = createClient({ url });
      assert.equal((await client.execute("PRAGMA journal_mode")).rows[0].journal_mode, "wal");
      client.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("does not close a Client it was given", async () => {
    const client = createClient({ url: ":memory:" });
    const svc = notesSvc({ storage: client });
    await svc.ready;
    await svc.close();
    assert.equal((await client.execute("SELECT 1 AS one")).rows[0].one, 1);
    client.close();
  });
});
