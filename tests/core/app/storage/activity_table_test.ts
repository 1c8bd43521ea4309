// The app's activity table (app migration 15): two B-trees, four values a row. Records written before the migration
// read the same after it, a migration that fails half-way leaves the old table whole, and every query of the table
// finds its rows through a key (EXPLAIN QUERY PLAN), never by walking the table. On real libSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient, type InStatement } from "@libsql/client";
import { migrate, openDatabase, schemaVersion } from "../../../../core/db/mod.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE, openAppStorage } from "../../../../core/app/storage/mod.ts";
import type { ActivityRecord } from "../../../../core/contract/mod.ts";
import { activityRecord } from "../../../fixtures/activity_records.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";

const T0 = Date.parse("2026-06-01T00:00:00.000Z");
const DAY = 24 * 60 * 60 * 1000;
/** The schema before the activity table was rebuilt. */
const BEFORE = APP_MIGRATIONS.slice(0, 14);

/** Records of two users and three keys, with every optional field somewhere, oldest first. */
const RECORDS: ActivityRecord[] = [
  activityRecord(T0 - 3000, { keyId: "key_a", userId: "alice", agentId: "agent-1", ms: 12.345 }),
  activityRecord(T0 - 2000, {
    keyId: "key_b",
    userId: "alice",
    via: "mcp",
    outcome: "refused",
    status: 403,
    code: "FORBIDDEN_SCOPE",
    client: 'Claude "desktop" ü',
    ms: 0,
  }),
  activityRecord(T0 - 1000, {
    keyId: "key_a",
    userId: "alice",
    intent: "notes.create",
    outcome: "pending_approval",
    status: 202,
    approvalId: "apr_1",
    ms: 3,
  }),
  activityRecord(T0, { keyId: "key_c", userId: "bob", outcome: "failed", status: 500, code: "HANDLER_ERROR" }),
];

/** Writes records as schema 14 stored them: thirteen columns. */
async function insertAsBefore(
  db: { execute(s: { sql: string; args: (string | number | null)[] }): Promise<unknown> },
  records: ActivityRecord[],
) {
  for (const r of records) {
    await db.execute({
      sql: `INSERT INTO app_activity (id, at, key_id, user_id, agent_id, intent, via, outcome, status, code, ms, client,
        approval_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      args: [
        r.id,
        r.at,
        r.keyId,
        r.userId,
        r.agentId,
        r.intent,
        r.via,
        r.outcome,
        r.status,
        r.code ?? null,
        r.ms,
        r.client ?? null,
        r.approvalId ?? null,
      ],
    });
  }
}

/** The B-trees of the activity table: the table itself and each index (a rowid table's key gets an autoindex). */
async function activityTrees(db: { execute(s: string): Promise<{ rows: unknown[] }> }): Promise<string[]> {
  const rs = await db.execute(
    "SELECT name FROM sqlite_master WHERE tbl_name = 'app_activity' AND type IN ('table', 'index') ORDER BY name",
  );
  return rs.rows.map((r) => String((r as { name: string }).name));
}

describe("the app's activity table", () => {
  test("is two B-trees, and records written before its migration read the same after it (file:)", async () => {
    const dir = tempDir("svc-activity-table-");
    const url = `file:${dir.path}/app.db`;
    try {
      const old = await openDatabase(url);
      await migrate(old, APP_MIGRATIONS_TABLE, BEFORE);
      await insertAsBefore(old, RECORDS);
      assert.equal((await activityTrees(old)).length, 4, "schema 14: the rowid table, its id autoindex, two indexes");
      old.close();

      const storage = await openAppStorage(url);
      try {
        assert.deepEqual(await activityTrees(storage.db), ["app_activity", "app_activity_by_key"]);
        const alice = RECORDS.filter((r) => r.userId === "alice").reverse();
        assert.deepEqual(await storage.listActivity({ userId: "alice", limit: 10 }), alice);
        assert.deepEqual(await storage.listActivity({ userId: "bob", limit: 10 }), [RECORDS[3]]);
        assert.deepEqual(
          await storage.listActivity({ userId: "alice", keyId: "key_a", limit: 10 }),
          [RECORDS[2], RECORDS[0]],
        );
        assert.deepEqual(
          await storage.listActivity({ userId: "alice", before: RECORDS[2].id, limit: 1 }),
          [RECORDS[1]],
        );
        // Written after the migration, read back the same beside the carried ones.
        const later = activityRecord(T0 + 1000, { userId: "alice", keyId: "key_b", agentId: "a", ms: 0.001 });
        await storage.insertActivity([later], { keep: true, mirror: false });
        assert.deepEqual(await storage.listActivity({ userId: "alice", limit: 2 }), [later, RECORDS[2]]);
      } finally {
        await storage.close();
      }
    } finally {
      dir.remove();
    }
  });

  test("a migration that fails half-way leaves schema 14 and its records whole", async () => {
    const client = createClient({ url: ":memory:" });
    await migrate(client, APP_MIGRATIONS_TABLE, BEFORE);
    await insertAsBefore(client, RECORDS);
    const rebuild = APP_MIGRATIONS[14];
    assert.equal(rebuild?.version, 15);
    const drop = rebuild.statements.indexOf("DROP TABLE app_activity");
    assert.ok(drop > 0, "the migration copies the rows, then drops the old table");
    // Fails after the copy and the drop, before the rename.
    const broken = { ...rebuild, statements: [...rebuild.statements.slice(0, drop + 1), "THIS IS NOT SQL"] };
    await assert.rejects(migrate(client, APP_MIGRATIONS_TABLE, [...BEFORE, broken]));
    assert.equal(await schemaVersion(client, APP_MIGRATIONS_TABLE), 14);
    assert.equal((await activityTrees(client)).length, 4);
    const kept = await client.execute("SELECT id, at, client, ms FROM app_activity ORDER BY id");
    assert.deepEqual(
      kept.rows.map((r) => [r.id, r.at, r.client, r.ms]),
      RECORDS.map((r) => [r.id, r.at, r.client ?? null, r.ms]),
    );
    const left = await client.execute("SELECT name FROM sqlite_master WHERE name LIKE 'app_activity_%'");
    assert.deepEqual(left.rows.map((r) => r.name).sort(), ["app_activity_by_key", "app_activity_by_user"]);

    const storage = await openAppStorage(client);
    assert.deepEqual(await storage.listActivity({ userId: "bob", limit: 10 }), [RECORDS[3]]);
    await storage.close();
    client.close();
  });

  test("every query of the table finds its rows through a key, never by walking the table", async () => {
    const client = createClient({ url: ":memory:" });
    const statements: { sql: string; args: unknown[] }[] = [];
    const note = (s: InStatement) => {
      const { sql, args = [] } = typeof s === "string" ? { sql: s } : s;
      if (/\bapp_activity\b/.test(sql)) statements.push({ sql, args: Array.isArray(args) ? args : [] });
    };
    // The storage's client, each statement noted on its way to the real one.
    const recording = {
      execute: (s: InStatement) => (note(s), client.execute(s)),
      batch: (
        list: InStatement[],
        mode?: "write" | "read" | "deferred",
      ) => (list.forEach(note), client.batch(list, mode)),
      transaction: (mode?: "write" | "read" | "deferred") => client.transaction(mode),
      close: () => {},
    };
    const storage = await openAppStorage(recording as unknown as Parameters<typeof openAppStorage>[0]);
    statements.length = 0; // the migrations' statements are not queries
    await storage.insertActivity(RECORDS, { keep: true, mirror: false });
    await storage.listActivity({ userId: "alice", limit: 10 });
    await storage.listActivity({ userId: "alice", before: RECORDS[2].id, limit: 10 });
    await storage.listActivity({ userId: "alice", keyId: "key_a", limit: 10 });
    await storage.listActivity({ userId: "alice", keyId: "key_a", before: RECORDS[2].id, limit: 10 });
    assert.equal(await storage.purgeActivity(T0 - 1500), 2);
    assert.equal(await storage.purgeActivity(T0 + DAY), 2);
    const queries = statements.filter((s) => !/^\s*INSERT\b/i.test(s.sql));
    assert.ok(queries.length >= 6, `the lists and the purges were seen (${queries.length})`);
    for (const { sql, args } of queries) {
      const plan = await client.execute({ sql: `EXPLAIN QUERY PLAN ${sql}`, args: args as never });
      const steps = plan.rows.map((r) => String(r.detail));
      assert.ok(steps.some((d) => /^SEARCH app_activity\b/.test(d)), `${sql}\n${steps.join("\n")}`);
      assert.ok(
        !steps.some((d) => /^SCAN app_activity\b/.test(d)),
        `a scan of the table:\n${sql}\n${steps.join("\n")}`,
      );
    }
    await storage.close();
    client.close();
  });
});
