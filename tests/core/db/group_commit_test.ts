// Group commit: writes of one turn share a transaction, each caller answered after its own commit.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../../core/db/mod.ts";
import type { Executor, Statement, TransactionMode } from "../../../core/db/mod.ts";
import { createGroupCommit, type Scheduler } from "../../../core/db/mod.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { holdWriteLock } from "../../fixtures/write_lock.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-group-commit-");
after(() => dir.remove());

async function table(): Promise<Executor> {
  const db = await openDatabase(":memory:");
  await db.execute("CREATE TABLE t (v TEXT UNIQUE)");
  return db;
}

describe("createGroupCommit", () => {
  test("writes of one turn go in one transaction, and each caller gets its own results", async () => {
    const db = await table();
    const batches: number[] = [];
    const counted: Executor = {
      ...db,
      engine: db.engine,
      execute: (s) => db.execute(s),
      batch: (s: readonly (string | Statement)[], mode?: TransactionMode) => {
        batches.push(s.length);
        return db.batch(s, mode);
      },
    };
    const group = createGroupCommit(counted);
    const results = await Promise.all(
      ["a", "b", "c"].map((v) => group.write([{ sql: "INSERT INTO t (v) VALUES (?) RETURNING v", args: [v] }])),
    );
    assert.deepEqual(results.map(([rs]) => rs.rows[0].v), ["a", "b", "c"]);
    assert.deepEqual(batches, [3], "one transaction for the three writes");
    db.close();
  });

  test("a failing write fails only its own caller", async () => {
    const db = await table();
    await db.execute("INSERT INTO t (v) VALUES ('taken')");
    const group = createGroupCommit(db);
    const outcomes = await Promise.allSettled(
      ["x", "taken", "y"].map((v) => group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: [v] }])),
    );
    assert.deepEqual(outcomes.map((o) => o.status), ["fulfilled", "rejected", "fulfilled"]);
    assert.deepEqual((await db.execute("SELECT v FROM t ORDER BY v")).rows.map((r) => r.v), ["taken", "x", "y"]);
    db.close();
  });

  test("a caller is answered only once its row can be read back", async () => {
    const db = await table();
    const group = createGroupCommit(db);
    await group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: ["durable"] }]);
    assert.equal((await db.execute("SELECT COUNT(*) AS n FROM t")).rows[0].n, 1);
    db.close();
  });

  test("a lone write is committed on the scheduler's turn, with no timer set", async () => {
    const db = await table();
    const tasks: (() => void)[] = [];
    const schedule: Scheduler = (task) => tasks.push(task);
    const timers: unknown[] = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((...args: unknown[]) => {
      timers.push(args);
      return realSetTimeout(...(args as Parameters<typeof setTimeout>));
    }) as unknown as typeof setTimeout;
    try {
      const group = createGroupCommit(db, { schedule });
      let done = false;
      const written = group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: ["alone"] }]).then(() => done = true);
      assert.equal(tasks.length, 1, "one task handed to the scheduler");
      await Promise.resolve();
      assert.equal(done, false, "not written before the scheduler runs it");
      tasks.shift()!();
      await written;
      assert.equal(timers.length, 0, "no timer was set");
      assert.equal((await db.execute("SELECT COUNT(*) AS n FROM t")).rows[0].n, 1);
    } finally {
      globalThis.setTimeout = realSetTimeout;
      db.close();
    }
  });

  test("a full group is written at once, without waiting for the scheduler, and in one transaction", async () => {
    const db = await table();
    const batches: number[] = [];
    const counted: Executor = {
      ...db,
      engine: db.engine,
      execute: (s) => db.execute(s),
      batch: (s: readonly (string | Statement)[], mode?: TransactionMode) => {
        batches.push(s.length);
        return db.batch(s, mode);
      },
    };
    const never: Scheduler = () => {};
    const group = createGroupCommit(counted, { schedule: never, maxStatements: 3 });
    await Promise.all(["a", "b", "c"].map((v) => group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: [v] }])));
    assert.deepEqual(batches, [3]);
    assert.equal((await db.execute("SELECT COUNT(*) AS n FROM t")).rows[0].n, 3);
    db.close();
  });

  test("writes queued while a group is being written share the next transaction", async () => {
    const db = await table();
    const batches: number[] = [];
    const counted: Executor = {
      ...db,
      engine: db.engine,
      execute: (s) => db.execute(s),
      batch: (s: readonly (string | Statement)[], mode?: TransactionMode) => {
        batches.push(s.length);
        return db.batch(s, mode);
      },
    };
    const tasks: (() => void)[] = [];
    const group = createGroupCommit(counted, { schedule: (task) => tasks.push(task) });
    const insert = (v: string) => group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: [v] }]);
    const first = [insert("a"), insert("b")];
    tasks.shift()!();
    const second = [insert("c"), insert("d"), insert("e")];
    tasks.shift()!();
    await Promise.all([...first, ...second]);
    assert.deepEqual(batches, [2, 3]);
    db.close();
  });

  test("writes of several turns that arrive while a group waits for its commit join one transaction, each counted once", async () => {
    const db = await table();
    const batches: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    const waiting: Executor = {
      ...db,
      engine: db.engine,
      execute: (s) => db.execute(s),
      // The first group waits (as for another process's write lock) before it commits.
      batch: async (s: readonly (string | Statement)[], mode?: TransactionMode) => {
        batches.push(s.length);
        if (batches.length === 1) await gate;
        return db.batch(s, mode);
      },
    };
    const tasks: (() => void)[] = [];
    const group = createGroupCommit(waiting, { schedule: (task) => tasks.push(task) });
    const insert = (v: string) => group.write([{ sql: "INSERT INTO t (v) VALUES (?)", args: [v] }]);
    const writes = [insert("a"), insert("b")];
    tasks.shift()!();
    await Promise.resolve(); // the first group is in its batch, waiting
    for (const v of ["c", "d", "e"]) {
      writes.push(insert(v));
      tasks.shift()!(); // a turn of its own each
    }
    release();
    await Promise.all(writes);
    await group.flush();
    assert.deepEqual(batches, [2, 3]);
    const rows = await db.execute("SELECT v FROM t ORDER BY v");
    assert.deepEqual(rows.rows.map((r) => r.v), ["a", "b", "c", "d", "e"]);
    db.close();
  });

  test("a lone write on a file another process holds the write lock of waits with the event loop running, then commits", async () => {
    const url = `file:${dir.file("locked.db")}`;
    // A write waiting inside SQLite would block this process, the holder could never let go, and the write would fail
    // once the busy timeout ran out. Not a short one: the right wait must outlast what a loaded machine takes between
    // the write's first try and the holder's release, else the write fails there too (500 ms was not a bound kept).
    const db = await openDatabase(url, { busyTimeoutMs: 5000 });
    const holder = await openDatabase(url);
    try {
      await db.execute("CREATE TABLE t (v TEXT)");
      const release = await holdWriteLock(holder);
      const write = createGroupCommit(db).write([{ sql: "INSERT INTO t (v) VALUES (?)", args: ["lone"] }]);
      await nextTurns(3);
      await release();
      await write;
      assert.deepEqual((await db.execute("SELECT v FROM t")).rows.map((r) => r.v), ["lone"]);
    } finally {
      holder.close();
      db.close();
    }
  });
});
