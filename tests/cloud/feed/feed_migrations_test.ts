import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { feedMigrationSteps } from "../../../cloud/feed/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";

const PROJECT = "prj_01JABCDEFGHJKMNPQRSTVWXYZ0";
const AT = "2025-01-01T00:00:00.000Z";

/** A fresh cloud database with one project. */
async function database() {
  const client = createClient({ url: ":memory:" });
  await openCloudStorage(client);
  await client.execute({
    sql: "INSERT INTO cloud_projects (id, name, secret_hash, created_at) VALUES (?, 'P', ?, ?)",
    args: [PROJECT, "0".repeat(64), AT],
  });
  return client;
}

/** Stores a key, revoked (with a reason) or not. */
function insertKey(id: string, revokedAt: string | null, reason: string | null = null) {
  return {
    sql: `INSERT INTO cloud_keys (id, project_id, user_id, name, scopes, agent_id, hash, start, created_at,
            revoked_at, revoke_reason) VALUES (?, ?, 'u', 'k', '[]', 'a', ?, 'svc_', ?, ?, ?)`,
    args: [id, PROJECT, `hash-${id}`, AT, revokedAt, reason],
  };
}

async function feed(client: ReturnType<typeof createClient>) {
  const rows = await client.execute("SELECT seq, key_id, reason FROM cloud_revocations ORDER BY seq");
  return rows.rows.map((r) => `${r.seq}:${r.key_id}:${r.reason}`);
}

describe("the revocation feed's table and triggers (cloud/feed owns them)", () => {
  test("the feed's migration steps create its table and both triggers that write its rows", () => {
    const statements = Object.values(feedMigrationSteps).flat().join("\n");
    assert.match(statements, /CREATE TABLE cloud_revocations \(/);
    assert.match(statements, /CREATE TRIGGER cloud_keys_revoked AFTER UPDATE OF revoked_at ON cloud_keys/);
    assert.match(statements, /CREATE TRIGGER cloud_keys_inserted_revoked AFTER INSERT ON cloud_keys/);
  });

  test("a key revoked by an update gets one feed row, numbered per project, in the same statement", async () => {
    const client = await database();
    try {
      await client.execute(insertKey("k1", null));
      assert.deepEqual(await feed(client), []);
      await client.execute({
        sql: "UPDATE cloud_keys SET revoked_at = ?, revoke_reason = 'dashboard' WHERE id = 'k1'",
        args: [AT],
      });
      assert.deepEqual(await feed(client), ["1:k1:dashboard"]);
      // Revoked again: no second row.
      await client.execute({
        sql: "UPDATE cloud_keys SET revoked_at = ? WHERE id = 'k1'",
        args: ["2025-01-02T00:00:00.000Z"],
      });
      assert.deepEqual(await feed(client), ["1:k1:dashboard"]);
    } finally {
      client.close();
    }
  });

  test("a key stored already revoked gets its row (reason app when none), a live one none", async () => {
    const client = await database();
    try {
      await client.batch([insertKey("k1", AT, "tooling"), insertKey("k2", null), insertKey("k3", AT)], "write");
      assert.deepEqual(await feed(client), ["1:k1:tooling", "2:k3:app"]);
    } finally {
      client.close();
    }
  });

  test("a revocation rolled back leaves no feed row", async () => {
    const client = await database();
    try {
      await client.execute(insertKey("k1", null));
      const tx = await client.transaction("write");
      await tx.execute({ sql: "UPDATE cloud_keys SET revoked_at = ? WHERE id = 'k1'", args: [AT] });
      await tx.rollback();
      assert.deepEqual(await feed(client), []);
    } finally {
      client.close();
    }
  });
});
