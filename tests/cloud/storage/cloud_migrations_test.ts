import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { migrate, schemaVersion } from "../../../core/db/database.ts";
import { createCloud } from "../../../cloud/mod.ts";
import { openCloudStorage } from "../../../cloud/storage/libsql_cloud_storage.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "../../../cloud/storage/cloud_migrations.ts";
import { createProject } from "../../../cloud/projects.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

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
    assert.equal((await storage.findProject("prj_01JABCDEFGHJKMNPQRSTVWXYZ0"))?.name, "Old");
    const [r] = await storage.appendEvents("prj_01JABCDEFGHJKMNPQRSTVWXYZ0", [
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
    await storage.addViolation(project, {
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
    const total = async (q: object) => (await storage.listViolations(project, { limit: 1, offset: 0, ...q })).total;
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
    await storage.appendAudit({ ...entry, action: "project.create", createdAt: "2025-01-01T00:00:00.000Z" });
    await assert.rejects(client.execute("UPDATE cloud_audit SET actor = 'someone'"), /append-only/);
    await assert.rejects(client.execute("DELETE FROM cloud_audit"), /append-only/);
    assert.equal((await storage.listAudit({ limit: 10, offset: 0 })).entries[0].actor, "cli");
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
    assert.deepEqual(await storage.violationBuckets(project, "2025-01-01T00:00:00.000Z", "hour"), [
      { bucket: "2025-01-01T05", severity: "severe", count: 2 },
      { bucket: "2025-01-01T06", severity: "severe", count: 1 },
    ]);
    client.close();
  });

  test("are applied once when two processes start together", async () => {
    const url = `file:${dir.file("together.db")}`;
    const [a, b] = await Promise.all([openCloudStorage(url), openCloudStorage(url)]);
    await createProject(a, "Together");
    assert.equal((await b.listProjects()).length, 1);
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
