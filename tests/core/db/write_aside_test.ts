// A file's write batches set aside (`Executor.writeAside`, issue 41: the app's activity groups) run on the connection of
// the file's worker thread, the one that checkpoints its WAL, off the event loop: committed there, readable here once
// the call resolves; refused or failed as SQLite says, nothing half written; run on the connection itself where no
// worker starts and for `:memory:`.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Executor, openDatabase, storageFailure } from "../../../core/db/mod.ts";
import { openNativeExecutor } from "../../../core/db/native_executor.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { holdWriteLock } from "../../fixtures/write_lock.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-write-aside-");
after(() => dir.remove());

const rows = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ sql: "INSERT INTO t VALUES (?, ?)", args: [`row ${from + i}`, i] }));

async function count(db: Executor): Promise<number> {
  return Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n);
}

/** The executor's `writeAside`, which a file's native executor has. */
function writeAside(db: Executor): NonNullable<Executor["writeAside"]> {
  assert.equal(typeof db.writeAside, "function", "the executor sets writes aside");
  return db.writeAside!.bind(db);
}

describe("a file's batch set aside", () => {
  test("is committed by another connection (the worker's): readable here once it resolves, and data_version moved", async () => {
    const db = await openDatabase(`file:${dir.file("aside.db")}`);
    try {
      await db.execute("CREATE TABLE t (v TEXT, n INTEGER)");
      const version = db.dataVersion();
      await writeAside(db)([...rows(50), { sql: "INSERT INTO t VALUES (?, ?)", args: [null, 1.5] }]);
      assert.equal(await count(db), 51);
      // data_version moves only for another connection's commit: this connection's own batch would leave it.
      assert.notEqual(db.dataVersion(), version);
      const odd = await db.execute("SELECT v, n FROM t WHERE v IS NULL");
      assert.deepEqual({ ...odd.rows[0] }, { v: null, n: 1.5 }, "arguments other than text arrive as they are");
      await writeAside(db)([{ sql: "INSERT INTO t VALUES (?, ?)", args: ["", 0] }, ...rows(3, 60)]);
      const texts = (await db.execute("SELECT v FROM t WHERE n = 0 ORDER BY v")).rows.map((r) => r.v);
      assert.deepEqual(texts, ["", "row 0", "row 60"], "text arguments arrive whole, the empty one too");
    } finally {
      db.close();
    }
  });

  test("that fails is rolled back whole and rejects with SQLite's error; the next one is written", async () => {
    const db = await openDatabase(`file:${dir.file("failed.db")}`);
    try {
      await db.execute("CREATE TABLE t (v TEXT NOT NULL, n INTEGER)");
      await assert.rejects(
        writeAside(db)([...rows(5), { sql: "INSERT INTO t VALUES (?, ?)", args: [null, 0] }]),
        /NOT NULL/,
      );
      assert.equal(await count(db), 0, "nothing of the failed batch");
      await writeAside(db)(rows(2));
      assert.equal(await count(db), 2);
    } finally {
      db.close();
    }
  });

  test("waits for another connection's write lock on the worker's thread, and is refused as busy past the busy timeout", async () => {
    const url = `file:${dir.file("locked.db")}`;
    // The wait that ends once the holder lets go has the default bound: with a short one, a loaded machine that takes
    // longer than it between the worker's first try and the holder's release fails the write. The refusal has its own
    // connection, with a short bound to run out.
    const db = openNativeExecutor(url, { busyTimeoutMs: 5000 });
    const impatient = openNativeExecutor(url, { busyTimeoutMs: 200 });
    const holder = await openDatabase(url); // another node
    try {
      await db.execute("CREATE TABLE t (v TEXT, n INTEGER)");
      let release = await holdWriteLock(holder);
      let settled = false;
      const waiting = writeAside(db)(rows(3)).finally(() => settled = true);
      await nextTurns(3); // the event loop turns while the worker waits
      assert.equal(settled, false);
      assert.equal(await count(db), 0, "this connection reads while the worker waits");
      await release();
      await waiting;
      assert.equal(await count(db), 3);

      release = await holdWriteLock(holder);
      const refused = await writeAside(impatient)(rows(3, 10)).then(() => undefined, (error: unknown) => error);
      await release();
      assert.equal(storageFailure(refused), "busy", `refused as busy: ${refused}`);
      assert.equal(await count(db), 3);
    } finally {
      holder.close();
      impatient.close();
      db.close();
    }
  });

  test("set aside right before the close is committed, and its call resolves", async () => {
    const file = dir.file("closed.db");
    const db = await openDatabase(`file:${file}`);
    await db.execute("CREATE TABLE t (v TEXT, n INTEGER)");
    await writeAside(db)(rows(1)); // the worker is running
    const last = writeAside(db)(rows(4, 1));
    db.close();
    await last;
    const again = await openDatabase(`file:${file}`);
    try {
      assert.equal(await count(again), 5);
      await assert.rejects(writeAside(db)(rows(1)), /closed/);
    } finally {
      again.close();
    }
  });

  test("runs on the connection itself where no worker starts (the process says so once), and for :memory:", async () => {
    const warned: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warned.push(args.map(String).join(" "));
    const missing = new URL("./no_such_worker.ts", import.meta.url);
    const db = openNativeExecutor(`file:${dir.file("fallback.db")}`, {
      busyTimeoutMs: 5000,
      checkpointWorker: missing,
    });
    const memory = await openDatabase(":memory:");
    try {
      await db.execute("CREATE TABLE t (v TEXT, n INTEGER)");
      // The first batch was sent to a worker that never loaded: it is run here once the worker is known gone.
      await writeAside(db)(rows(3));
      await writeAside(db)(rows(2, 3));
      assert.equal(await count(db), 5);
      // Once a process: none when a test file before this one in the same process (Bun runs them in one) said it.
      assert.ok(warned.length <= 1, warned.join("\n"));
      for (const line of warned) {
        assert.match(line, /set-aside writes \(activity records\) of file databases run on the event loop/);
      }

      await memory.execute("CREATE TABLE t (v TEXT, n INTEGER)");
      await writeAside(memory)(rows(2));
      assert.equal(await count(memory), 2);
    } finally {
      console.warn = warn;
      db.close();
      memory.close();
    }
  });
});
