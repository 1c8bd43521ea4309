// One chunked delete for every purge, the app's and the cloud's: a chunk of rows per statement, so a large purge
// never holds the write lock for long. On real libSQL.
import { test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../../core/db/mod.ts";
import type { Executor } from "../../../core/db/mod.ts";
import { DELETE_CHUNK, deleteInChunks } from "../../../core/db/mod.ts";

/** A table of `n` rows, `old` = 1 for all but the last 10. */
async function rows(n: number): Promise<Executor> {
  const db = await openDatabase(":memory:");
  await db.execute("CREATE TABLE t (seq INTEGER PRIMARY KEY, old INTEGER NOT NULL)");
  await db.execute({
    sql:
      "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) INSERT INTO t SELECT i, i <= ? FROM s",
    args: [n, n - 10],
  });
  return db;
}

async function left(db: Executor): Promise<number[]> {
  return (await db.execute("SELECT seq FROM t ORDER BY seq")).rows.map((row) => Number(row.seq));
}

test("deletes every match over several chunks and keeps the rest", async () => {
  const n = 2 * DELETE_CHUNK + 510;
  const db = await rows(n);
  assert.equal(await deleteInChunks(db, { table: "t", where: "old = ?", args: [1] }), n - 10);
  assert.deepEqual(await left(db), Array.from({ length: 10 }, (_, i) => n - 9 + i));
  db.close();
});

test("deletes at most `most`, the first in `orderBy` order", async () => {
  const db = await rows(DELETE_CHUNK + 500);
  const most = DELETE_CHUNK + 1;
  assert.equal(await deleteInChunks(db, { table: "t", where: "old = 1", most, orderBy: "seq DESC" }), most);
  const kept = await left(db);
  assert.equal(kept.length, 499);
  assert.deepEqual(kept.slice(0, 3), [1, 2, 3], "the newest matches went first");
  db.close();
});

test("deletes from a WITHOUT ROWID table by its key, over several chunks", async () => {
  const db = await openDatabase(":memory:");
  await db.execute("CREATE TABLE w (g TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (g, n)) WITHOUT ROWID");
  const n = 2 * DELETE_CHUNK + 10;
  await db.execute({
    sql: "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < ?) " +
      "INSERT INTO w SELECT g, i FROM s, (SELECT 'a' AS g UNION ALL SELECT 'b')",
    args: [n],
  });
  const deleted = await deleteInChunks(db, { table: "w", key: "g, n", where: "g = ? AND n <= ?", args: ["a", n - 5] });
  assert.equal(deleted, n - 5);
  const rs = await db.execute("SELECT g, COUNT(*) AS c FROM w GROUP BY g ORDER BY g");
  assert.deepEqual(rs.rows.map((r) => [r.g, Number(r.c)]), [["a", 5], ["b", n]]);
  db.close();
});
