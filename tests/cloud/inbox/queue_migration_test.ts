// The migration of the inbox as a queue rebuilds cloud_events: rows, their ids and the id sequence survive it.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { migrate } from "../../../core/db/mod.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "../../../cloud/database/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

const dir = tempDir("svc-queue-migration-");
after(() => dir.remove());

test("upgrading keeps every item and never reuses an inbox id, even one purged before the upgrade", async () => {
  const queue = cloudMigrations.find((m) => /the inbox as a queue/.test(m.name))!;
  const client = createClient({ url: `file:${dir.file("old.db")}` });
  await migrate(client, CLOUD_MIGRATIONS_TABLE, cloudMigrations.filter((m) => m.version < queue.version));
  const project = "prj_01JABCDEFGHJKMNPQRSTVWXYZ0";
  await client.execute({
    sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, ?, ?, ?)",
    args: [project, "Old", "0".repeat(64), "2025-01-01T00:00:00.000Z"],
  });
  for (const id of ["e1", "e2", "e3"]) {
    await client.execute({
      sql: `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at, acked_at)
            VALUES (?, ?, 't', 'a', '{}', '2025-01-01T00:00:00.000Z', ?)`,
      args: [project, id, id === "e1" ? "2025-01-01T00:00:01.000Z" : null],
    });
  }
  await client.execute("DELETE FROM cloud_events WHERE event_id = 'e3'");
  const storage = await openCloudStorage(client);
  try {
    const kept = await client.execute("SELECT inbox_id, event_id, acked_at FROM cloud_events ORDER BY inbox_id");
    assert.deepEqual(kept.rows.map((r) => [r.inbox_id, r.event_id, r.acked_at]), [
      [1, "e1", "2025-01-01T00:00:01.000Z"],
      [2, "e2", null],
    ]);
    const [fresh, duplicate] = await storage.inbox.appendEvents(project, [
      { eventId: "e4", type: "t", agentId: "a", payload: {} },
      { eventId: "e2", type: "t", agentId: "a", payload: {} },
    ], "2025-01-02T00:00:00.000Z");
    assert.deepEqual([fresh.inboxId, fresh.duplicate], [4, false]);
    assert.deepEqual([duplicate.inboxId, duplicate.duplicate], [2, true]);
  } finally {
    await storage.close();
    client.close();
  }
});
