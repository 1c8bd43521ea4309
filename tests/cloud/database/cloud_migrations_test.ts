import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Client, createClient } from "@libsql/client";
import { migrate, schemaVersion } from "../../../core/db/mod.ts";
import { createCloud } from "../../../cloud/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import {
  CLOUD_FEATURE_MIGRATIONS,
  CLOUD_MIGRATION_ORDER,
  CLOUD_MIGRATIONS_TABLE,
  cloudMigrations,
} from "../../../cloud/database/mod.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { storageBackends } from "./storage_backends.ts";

describe("cloud migrations", () => {
  const dir = tempDir();
  after(() => dir.remove());

  test("bring an empty database to the newest schema, with cloud_-prefixed tables", async () => {
    const client = createClient({ url: ":memory:" });
    await openCloudStorage(client);
    assert.equal(await schemaVersion(client, CLOUD_MIGRATIONS_TABLE), cloudMigrations.length);
    const tables = await client.execute(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
    );
    for (const row of tables.rows) assert.match(String(row.name), /^(cloud_|svc_cloud_migrations$)/);
    client.close();
  });

  test("upgrade a database of the previous version, keeping its data", async () => {
    const url = `file:${dir.file("previous.db")}`;
    const client = createClient({ url });
    await migrate(client, CLOUD_MIGRATIONS_TABLE, cloudMigrations.slice(0, cloudMigrations.length - 1));
    await client.execute({
      sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
      args: ["prj_01JABCDEFGHJKMNPQRSTVWXYZ0", "Old", "0".repeat(64), "2025-01-01T00:00:00.000Z"],
    });
    const storage = await openCloudStorage(client);
    assert.equal(await schemaVersion(client, CLOUD_MIGRATIONS_TABLE), cloudMigrations.length);
    assert.equal((await storage.projects.findProject("prj_01JABCDEFGHJKMNPQRSTVWXYZ0"))?.name, "Old");
    const [r] = await storage.inbox.appendEvents("prj_01JABCDEFGHJKMNPQRSTVWXYZ0", [
      { eventId: "e", type: "t", agentId: "a", payload: {} },
    ], "2025-01-01T00:00:00.000Z");
    assert.equal(r.duplicate, false);
    client.close();
  });

  test("count the violations stored before the totals table existed, and keep totals exact after", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, CLOUD_MIGRATIONS_TABLE, cloudMigrations.slice(0, 3));
    const project = "prj_01JABCDEFGHJKMNPQRSTVWXYZ0";
    await client.execute({
      sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
      args: [project, "Old", "0".repeat(64), "2025-01-01T00:00:00.000Z"],
    });
    const insert = (i: number, kind: string, severity: string) => ({
      sql: `INSERT INTO cloud_violations (id, project_id, key_id, kind, severity, metadata, created_at)
            VALUES (?, ?, ?, ?, ?, '{}', ?)`,
      args: [`v${i}`, project, "k", kind, severity, `2025-01-01T00:00:00.${String(i).padStart(3, "0")}Z`],
    });
    await client.batch([0, 1, 2].map((i) => insert(i, "A", i === 2 ? "severe" : "info")), "write");
    const storage = await openCloudStorage(client);
    await storage.violations.addViolation(project, {
      id: "v9",
      keyId: "k",
      userId: null,
      intent: null,
      kind: "B",
      severity: "info",
      message: null,
      metadata: {},
      createdAt: "2025-01-02T00:00:00.000Z",
    });
    const total = async (q: object) =>
      (await storage.violations.listViolations(project, { limit: 1, offset: 0, ...q })).total;
    assert.equal(await total({}), 4);
    assert.equal(await total({ kind: "A" }), 3);
    assert.equal(await total({ kind: "A", severity: "info" }), 2);
    assert.equal(await total({ severity: "info" }), 3);
    assert.equal(await total({ kind: "C" }), 0);
    assert.equal(await total({ keyId: "k", kind: "B" }), 1, "a keyId filter counts the index range");
    assert.equal(await total({ since: "2025-01-01T00:00:00.001Z" }), 3, "a since filter counts the index range");
    client.close();
  });

  test("keep the audit log append-only: an update or a delete is refused", async () => {
    const client = createClient({ url: ":memory:" });
    const storage = await openCloudStorage(client);
    const entry = { projectId: null, actor: "cli", target: null, detail: {}, sourceAddress: null };
    await storage.audit.appendAudit({ ...entry, action: "project.create", createdAt: "2025-01-01T00:00:00.000Z" });
    await assert.rejects(client.execute("UPDATE cloud_audit SET actor = 'someone'"), /append-only/);
    await assert.rejects(client.execute("DELETE FROM cloud_audit"), /append-only/);
    assert.equal((await storage.audit.listAudit({ limit: 10, offset: 0 })).entries[0].actor, "cli");
    client.close();
  });

  test("count the violations stored before the hourly chart table existed, by hour and severity", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, CLOUD_MIGRATIONS_TABLE, cloudMigrations.slice(0, 4));
    const project = "prj_01JABCDEFGHJKMNPQRSTVWXYZ0";
    await client.batch([
      {
        sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
        args: [project, "Old", "0".repeat(64), "2025-01-01T00:00:00.000Z"],
      },
      ...["2025-01-01T05:01:00.000Z", "2025-01-01T05:59:00.000Z", "2025-01-01T06:00:00.000Z"].map((at, i) => ({
        sql: `INSERT INTO cloud_violations (id, project_id, key_id, kind, severity, metadata, created_at)
              VALUES (?, ?, 'k', 'A', 'severe', '{}', ?)`,
        args: [`v${i}`, project, at],
      })),
    ], "write");
    const storage = await openCloudStorage(client);
    assert.deepEqual(await storage.violations.violationBuckets(project, "2025-01-01T00:00:00.000Z", "hour"), [
      { bucket: "2025-01-01T05", severity: "severe", count: 2 },
      { bucket: "2025-01-01T06", severity: "severe", count: 1 },
    ]);
    client.close();
  });

  test("are applied once when two processes start together", async () => {
    const url = `file:${dir.file("together.db")}`;
    const [a, b] = await Promise.all([openCloudStorage(url), openCloudStorage(url)]);
    await createProject(a, "Together");
    assert.equal((await b.projects.listProjects()).length, 1);
    await Promise.all([a.close(), b.close()]);
  });

  test("refuse a database whose schema is newer than this build, with a clear message", async () => {
    const client = createClient({ url: ":memory:" });
    await openCloudStorage(client);
    await client.execute({
      sql: `INSERT INTO ${CLOUD_MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, 'future', ?)`,
      args: [cloudMigrations.length + 1, new Date().toISOString()],
    });
    await assert.rejects(openCloudStorage(client), /newer than this build knows/);
    const cloud = createCloud({ db: client, logger: () => {} });
    await assert.rejects(cloud.ready, /newer than this build knows/);
    const res = await cloud.handle(new Request("http://x/v1/sdk/intents"));
    assert.equal(res.status, 503, "the contract's STORAGE_UNAVAILABLE");
    assert.deepEqual(await res.json(), {
      ok: false,
      error: { code: "STORAGE_UNAVAILABLE", message: "The database cannot be opened or reached" },
    });
    await cloud.close();
    client.close();
  });
});

const clients = storageBackends<Client>((url, options) => Promise.resolve(createClient({ url, ...options })));

for (const [name, open] of clients.list) {
  describe(`cloud migration 7 on ${name}`, () => {
    const a = "prj_01JAAAAAAAAAAAAAAAAAAAAAAA";
    const b = "prj_01JBBBBBBBBBBBBBBBBBBBBBBB";
    const key = (id: string, project: string, hash: string) => ({
      sql: `INSERT INTO cloud_keys (id, project_id, user_id, name, scopes, agent_id, hash, start, created_at)
            VALUES (?, ?, 'u', ?, '["s"]', 'u', ?, 'svc_live_abc', '2025-01-01T00:00:00.000Z')`,
      args: [id, project, `name of ${id}`, hash],
    });

    test("makes key ids and hashes unique per project, keeping the keys, the feed's numbering and its triggers", async () => {
      const client = await open();
      await migrate(client, CLOUD_MIGRATIONS_TABLE, cloudMigrations.slice(0, 6));
      await client.batch([
        ...[a, b].map((id) => ({
          sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
          args: [id, id, "0".repeat(64), "2025-01-01T00:00:00.000Z"],
        })),
        key("k1", a, "1".repeat(64)),
        key("k2", a, "2".repeat(64)),
        key("k3", a, "3".repeat(64)),
        key("k4", b, "4".repeat(64)),
        // The triggers of migration 6 at work: feed rows 1 and 2 of project a.
        "UPDATE cloud_keys SET revoked_at = '2025-01-02T00:00:00.000Z', revoke_reason = 'dashboard' WHERE id = 'k2'",
        "UPDATE cloud_keys SET revoked_at = '2025-01-03T00:00:00.000Z', revoke_reason = 'auto' WHERE id = 'k3'",
        `INSERT INTO cloud_operators (id, email, role, password_hash, created_at, updated_at)
          VALUES ('op_1', 'a@example.com', 'admin', 'x', '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z')`,
      ], "write");
      const before = await client.execute("SELECT * FROM cloud_keys ORDER BY rowid");

      const storage = await openCloudStorage(client);
      assert.equal(await schemaVersion(client, CLOUD_MIGRATIONS_TABLE), cloudMigrations.length);
      const after = await client.execute(
        `SELECT ${Object.keys(before.rows[0]).join(", ")} FROM cloud_keys ORDER BY seq`,
      );
      assert.deepEqual(after.rows.map((r) => ({ ...r })), before.rows.map((r) => ({ ...r })), "every key as it was");
      assert.deepEqual((await storage.keys.listRevocations(a, 0, 10)).map((r) => [r.seq, r.keyId, r.reason]), [
        [1, "k2", "dashboard"],
        [2, "k3", "auto"],
      ]);

      // The feed keeps numbering, from an update and from a mirror stored revoked.
      assert.equal(
        await storage.keys.revokeKey(a, "k1", "2025-01-04T00:00:00.000Z", "tooling"),
        "2025-01-04T00:00:00.000Z",
      );
      const mirrored = {
        id: "k5",
        userId: "u",
        name: "k",
        scopes: [],
        agentId: "u",
        hash: "5".repeat(64),
        start: "svc_live_abc",
        createdAt: "2025-01-05T00:00:00.000Z",
        lastUsedAt: null,
        revokedAt: "2025-01-05T00:00:00.000Z",
      };
      assert.equal(await storage.keys.mirrorKey(a, mirrored), "revoked");
      assert.deepEqual((await storage.keys.listRevocations(a, 2, 10)).map((r) => [r.seq, r.keyId, r.reason]), [
        [3, "k1", "tooling"],
        [4, "k5", "app"],
      ]);

      // Project b may now hold a's id and a's hash; the older row still answers for the hash.
      assert.equal(
        await storage.keys.mirrorKey(b, { ...mirrored, id: "k1", hash: "6".repeat(64), revokedAt: null }),
        "stored",
      );
      assert.equal(
        await storage.keys.mirrorKey(b, { ...mirrored, id: "k7", hash: "2".repeat(64), revokedAt: null }),
        "stored",
      );
      assert.deepEqual(await storage.keys.findKeyAuth("2".repeat(64)), {
        id: "k2",
        projectId: a,
        agentId: "u",
        revokedAt: "2025-01-02T00:00:00.000Z",
        lastUsedAt: null,
      });
      assert.equal(
        await storage.keys.revokeKey(b, "k4", "2025-01-06T00:00:00.000Z", "tooling"),
        "2025-01-06T00:00:00.000Z",
      );
      assert.deepEqual((await storage.keys.listRevocations(b, 0, 10)).map((r) => [r.seq, r.keyId]), [[1, "k4"]]);

      const schema = await client.execute("SELECT type, name FROM sqlite_master WHERE tbl_name = 'cloud_keys'");
      const names = schema.rows.map((r) => `${r.type} ${r.name}`).filter((n) => !n.includes("sqlite_autoindex"));
      assert.deepEqual(names.sort(), [
        "index cloud_keys_by_grant", // migration 13
        "index cloud_keys_by_hash",
        "index cloud_keys_by_name",
        "index cloud_keys_by_project",
        "index cloud_keys_by_start",
        "index cloud_keys_by_user",
        "index cloud_keys_revocations_due", // migration 10
        "table cloud_keys",
        "trigger cloud_keys_auth_changed", // migration 20
        "trigger cloud_keys_auth_deleted",
        "trigger cloud_keys_auth_inserted",
        "trigger cloud_keys_counted",
        "trigger cloud_keys_inserted_revoked",
        "trigger cloud_keys_recounted",
        "trigger cloud_keys_revoked",
        "trigger cloud_keys_uncounted",
      ]);
      const plan = await client.execute({
        sql: "EXPLAIN QUERY PLAN SELECT id FROM cloud_keys WHERE hash = ? ORDER BY seq LIMIT 1",
        args: ["1".repeat(64)],
      });
      const detail = plan.rows.map((r) => String(r.detail)).join("; ");
      assert.match(detail, /USING INDEX cloud_keys_by_hash/);
      assert.doesNotMatch(detail, /TEMP B-TREE/, "agent auth reads the first holder without sorting");
      const operator = await client.execute("SELECT totp_step FROM cloud_operators WHERE id = 'op_1'");
      assert.equal(operator.rows[0].totp_step, null);
      await storage.close();
      client.close();
    });
  });
}

test("migration 7 really ran over Hrana HTTP", () => {
  assert.ok(clients.remoteRequests() > 10);
});

describe("each cloud feature owns its migration steps", () => {
  test("every step a feature owns is applied by the one ordered list, versions 1 to n in order", () => {
    assert.deepEqual(cloudMigrations.map((m) => m.version), cloudMigrations.map((_, i) => i + 1));
    for (const [feature, steps] of Object.entries(CLOUD_FEATURE_MIGRATIONS)) {
      for (const version of Object.keys(steps).map(Number)) {
        const order = CLOUD_MIGRATION_ORDER.find((m) => m.version === version);
        assert.ok(order?.features.includes(feature as never), `${feature}'s steps of version ${version} are applied`);
      }
    }
    const owned = Object.values(CLOUD_FEATURE_MIGRATIONS).flatMap((steps) => Object.values(steps).flat());
    assert.equal(cloudMigrations.flatMap((m) => m.statements).length, owned.length);
  });

  test("the feed's table and triggers come from cloud/feed, the keys' table from cloud/keys", () => {
    const sqlOf = (steps: Readonly<Record<number, readonly string[]>>) => Object.values(steps).flat().join("\n");
    assert.match(sqlOf(CLOUD_FEATURE_MIGRATIONS.feed), /CREATE TRIGGER cloud_keys_revoked/);
    assert.doesNotMatch(sqlOf(CLOUD_FEATURE_MIGRATIONS.keys), /cloud_revocations/);
    assert.match(sqlOf(CLOUD_FEATURE_MIGRATIONS.keys), /CREATE TABLE cloud_keys \(/);
  });
});
