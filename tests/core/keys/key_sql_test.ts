// One keys core for both sides: the same row mapping and statements on the app's table and on a table shared by
// projects (the cloud's shape, with a project_id column). On real libSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../../core/db/mod.ts";
import type { Executor } from "../../../core/db/mod.ts";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import {
  findKeyBySecret,
  insertKey,
  type KeyTable,
  mintKey,
  revokeKeyOfUser,
  selectKeyByHash,
  selectKeyById,
  selectKeysOfUser,
  toKey,
  touchKey,
} from "../../../core/keys/mod.ts";

const COLUMNS = `id TEXT NOT NULL, user_id TEXT NOT NULL, name TEXT NOT NULL, scopes TEXT NOT NULL,
  agent_id TEXT NOT NULL, hash TEXT NOT NULL, start TEXT NOT NULL, created_at TEXT NOT NULL,
  last_used_at TEXT, revoked_at TEXT, expires_at TEXT, revokes_at TEXT, grant_id TEXT`;

async function tables(): Promise<Executor> {
  const db = await openDatabase(":memory:");
  await db.execute(`CREATE TABLE app_keys (${COLUMNS})`);
  await db.execute(`CREATE TABLE cloud_keys (project_id TEXT NOT NULL, ${COLUMNS})`);
  return db;
}

const APP: KeyTable = { table: "app_keys" };
const ONE: KeyTable = { table: "cloud_keys", projectId: "prj_one" };
const TWO: KeyTable = { table: "cloud_keys", projectId: "prj_two" };

describe("the keys core", () => {
  test("a key inserted reads back equal, by user, hash and id, on the app's table", async () => {
    const db = await tables();
    try {
      const { record } = await mintAgentKey("alice", { name: "laptop", scopes: ["notes:read"], agentId: "alice" });
      await db.execute(insertKey(APP, record));
      assert.deepEqual((await db.execute(selectKeysOfUser(APP, "alice"))).rows.map(toKey), [record]);
      assert.deepEqual(toKey((await db.execute(selectKeyByHash(APP, record.hash))).rows[0]), record);
      assert.deepEqual(toKey((await db.execute(selectKeyById(APP, record.id))).rows[0]), record);
    } finally {
      db.close();
    }
  });

  test("a project's statements see only that project's keys", async () => {
    const db = await tables();
    try {
      const { record } = await mintAgentKey("alice", { name: "laptop", scopes: [], agentId: "alice" });
      await db.execute(insertKey(ONE, record));
      const stored = await db.execute("SELECT project_id FROM cloud_keys");
      assert.deepEqual(stored.rows.map((r) => r.project_id), ["prj_one"]);
      assert.equal((await db.execute(selectKeysOfUser(ONE, "alice"))).rows.length, 1);
      assert.equal((await db.execute(selectKeysOfUser(TWO, "alice"))).rows.length, 0);
      assert.equal((await db.execute(selectKeyByHash(TWO, record.hash))).rows.length, 0);
      assert.equal((await db.execute(selectKeyById(TWO, record.id))).rows.length, 0);
      assert.equal(
        (await db.execute(revokeKeyOfUser(TWO, "alice", record.id, "2026-01-01T00:00:00.000Z"))).rows.length,
        0,
      );
      assert.equal((await db.execute(selectKeyById(ONE, record.id))).rows[0].revoked_at, null);
    } finally {
      db.close();
    }
  });

  test("a conditional insert stores nothing when its condition is false", async () => {
    const db = await tables();
    try {
      const { record } = await mintAgentKey("alice", { name: "laptop", scopes: [], agentId: "team" });
      const refused = await db.execute(insertKey(APP, record, { sql: "1 = ?", args: [0] }));
      assert.equal(refused.rowsAffected, 0);
      const stored = await db.execute(insertKey(APP, record, { sql: "1 = ?", args: [1] }));
      assert.equal(stored.rowsAffected, 1);
    } finally {
      db.close();
    }
  });

  test("a revoke keeps the first time and only the owner revokes; a touch never moves lastUsedAt back", async () => {
    const db = await tables();
    try {
      const { record } = await mintAgentKey("alice", { name: "laptop", scopes: [], agentId: "alice" });
      await db.execute(insertKey(ONE, record));
      assert.equal(
        (await db.execute(revokeKeyOfUser(ONE, "bob", record.id, "2026-01-01T00:00:00.000Z"))).rows.length,
        0,
      );
      const first = await db.execute(revokeKeyOfUser(ONE, "alice", record.id, "2026-01-01T00:00:00.000Z"));
      assert.equal(toKey(first.rows[0]).revokedAt, "2026-01-01T00:00:00.000Z");
      const again = await db.execute(revokeKeyOfUser(ONE, "alice", record.id, "2026-02-01T00:00:00.000Z"));
      assert.equal(toKey(again.rows[0]).revokedAt, "2026-01-01T00:00:00.000Z");
      await db.execute(touchKey(ONE, record.id, "2026-01-02T00:00:00.000Z"));
      await db.execute(touchKey(ONE, record.id, "2026-01-01T12:00:00.000Z"));
      await db.execute(touchKey(TWO, record.id, "2026-03-01T00:00:00.000Z"));
      assert.equal(
        toKey((await db.execute(selectKeyById(ONE, record.id))).rows[0]).lastUsedAt,
        "2026-01-02T00:00:00.000Z",
      );
    } finally {
      db.close();
    }
  });

  test("mintKey stores what findKeyBySecret finds, and refuses an agentId another user holds", async () => {
    const stored = new Map<string, { hash: string; userId: string }>();
    const { secret, key, record } = await mintKey("alice", { name: "laptop", scopes: ["a"] }, {
      sharedInbox: false,
      store: (r) => (stored.set(r.hash, r), Promise.resolve(true)),
    });
    assert.equal(key.id, record.id);
    assert.equal(key.start, secret.slice(0, key.start.length));
    const found = await findKeyBySecret(secret, (hash) => Promise.resolve(stored.get(hash) ?? null));
    assert.equal(found?.userId, "alice");
    assert.equal(await findKeyBySecret(secret + "x", (hash) => Promise.resolve(stored.get(hash) ?? null)), null);
    await assert.rejects(
      mintKey("bob", { name: "x", scopes: [], agentId: "team" }, {
        sharedInbox: false,
        store: () => Promise.resolve(false),
      }),
      { code: "VALIDATION_ERROR", message: "agentId is not available to this user" },
    );
  });
});
