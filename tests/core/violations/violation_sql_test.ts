// One violations core for both sides, and its one auto-revoke counting rule: a coalesced report of N repeats
// counts N, on the app's table and on a table shared by projects alike. On real libSQL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Executor, openDatabase } from "../../../core/db/mod.ts";
import { newViolation, repeatedViolation, type Violation } from "../../../core/contract/mod.ts";
import {
  countTowardAutoRevoke,
  insertViolation,
  insertViolations,
  selectLatestViolations,
  toViolation,
  type ViolationTable,
  violationWeight,
} from "../../../core/violations/mod.ts";

const COLUMNS = `seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, key_id TEXT NOT NULL, user_id TEXT,
  intent TEXT, kind TEXT NOT NULL, severity TEXT NOT NULL, message TEXT, metadata TEXT NOT NULL,
  created_at TEXT NOT NULL`;

async function tables(): Promise<Executor> {
  const db = await openDatabase(":memory:");
  await db.execute(`CREATE TABLE app_violations (${COLUMNS})`);
  await db.execute(`CREATE TABLE cloud_violations (${COLUMNS}, project_id TEXT NOT NULL)`);
  return db;
}

const APP: ViolationTable = { table: "app_violations" };
const ONE: ViolationTable = { table: "cloud_violations", projectId: "prj_one" };
const TWO: ViolationTable = { table: "cloud_violations", projectId: "prj_two" };
const POLICY = { threshold: 5, windowMinutes: 10 };
const NOW = "2026-01-01T01:00:00.000Z";

function refusal(keyId = "k1", at = "2026-01-01T00:55:00.000Z"): Violation {
  return { ...newViolation("FORBIDDEN_SCOPE", { keyId, userId: "alice", message: "no" }), createdAt: at };
}

async function count(db: Executor, t: ViolationTable, keyId = "k1"): Promise<number> {
  return Number((await db.execute(countTowardAutoRevoke(t, keyId, POLICY, NOW))).rows[0].n);
}

describe("the violations core", () => {
  for (const [name, table] of [["the app's table", APP], ["a project's table", ONE]] as const) {
    test(`a coalesced report of N repeats counts N toward auto-revoke, on ${name}`, async () => {
      const db = await tables();
      try {
        const first = refusal();
        const summary = { ...repeatedViolation(first, 3, first.createdAt), createdAt: "2026-01-01T00:56:00.000Z" };
        await db.execute(insertViolation(table, first));
        await db.execute(insertViolation(table, summary));
        assert.equal(await count(db, table), 4, "the first refusal and its 3 repeats");
        assert.equal(violationWeight(summary), 3);
        assert.equal(violationWeight(first), 1);
      } finally {
        db.close();
      }
    });
  }

  test("the count leaves out other keys, other projects, old ones, uncounted kinds and AUTO_REVOKED", async () => {
    const db = await tables();
    try {
      await db.execute(insertViolation(ONE, refusal()));
      await db.execute(insertViolation(ONE, refusal("k2")));
      await db.execute(insertViolation(TWO, refusal()));
      await db.execute(insertViolation(ONE, refusal("k1", "2026-01-01T00:49:59.999Z")));
      await db.execute(insertViolation(ONE, {
        ...newViolation("UNKNOWN_INTENT", { keyId: "k1", userId: "alice", message: "?" }),
        createdAt: "2026-01-01T00:58:00.000Z",
      }));
      await db.execute(insertViolation(ONE, { ...refusal(), kind: "AUTO_REVOKED", severity: "severe" }));
      assert.equal(await count(db, ONE), 1);
      assert.equal(await count(db, TWO), 1);
      assert.equal(await count(db, APP), 0);
    } finally {
      db.close();
    }
  });

  test("metadata that only looks like a summary counts 1", async () => {
    const db = await tables();
    try {
      await db.execute(insertViolation(APP, { ...refusal(), metadata: { repeats: 7 } }));
      await db.execute(insertViolation(APP, { ...refusal(), metadata: { repeats: "7", first: "v" } }));
      assert.equal(await count(db, APP), 2);
      assert.equal(violationWeight({ metadata: { repeats: 7 } }), 1);
    } finally {
      db.close();
    }
  });

  test("several violations go in one statement and read back equal, in their project", async () => {
    const db = await tables();
    try {
      const vs = [refusal("k1", "2026-01-01T00:01:00.000Z"), refusal("k1", "2026-01-01T00:02:00.000Z")];
      assert.equal((await db.execute(insertViolations(TWO, vs))).rowsAffected, 2);
      const read = (await db.execute(selectLatestViolations(TWO, { limit: 10 }))).rows.map(toViolation);
      assert.deepEqual(read, [vs[1], vs[0]]);
      assert.throws(() => insertViolations(TWO, []), RangeError);
    } finally {
      db.close();
    }
  });

  test("the latest violations read back equal, newest first, of one key or all, in one project", async () => {
    const db = await tables();
    try {
      const a = refusal("k1", "2026-01-01T00:01:00.000Z");
      const b = refusal("k2", "2026-01-01T00:02:00.000Z");
      await db.execute(insertViolation(ONE, a));
      await db.execute(insertViolation(ONE, b));
      await db.execute(insertViolation(TWO, refusal("k1")));
      const all = (await db.execute(selectLatestViolations(ONE, { limit: 10 }))).rows.map(toViolation);
      assert.deepEqual(all, [b, a]);
      const one = (await db.execute(selectLatestViolations(ONE, { limit: 10, keyId: "k1" }))).rows.map(toViolation);
      assert.deepEqual(one, [a]);
      assert.equal((await db.execute(selectLatestViolations(APP, { limit: 10 }))).rows.length, 0);
    } finally {
      db.close();
    }
  });
});
