import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { migrate, schemaVersion } from "../../core/database.ts";
import { createCloud } from "../../cloud/mod.ts";
import { openCloudStorage } from "../../cloud/libsql_storage.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "../../cloud/migrations.ts";
import { createProject } from "../../cloud/projects.ts";
import { tempDir } from "./_temp_dir.ts";

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
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), { ok: false, error: { code: "INTERNAL", message: "Internal error" } });
    await cloud.close();
    client.close();
  });
});
