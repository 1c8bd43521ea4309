// The executor contract, on both engines: the native binding (`:memory:`, `file:`) and @libsql/client
// (an injected client on a file, and the remote path through the Hrana fixture).
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, statSync } from "node:fs";
import { createClient } from "@libsql/client";
import { openDatabase } from "../../../core/db/mod.ts";
import type { Executor } from "../../../core/db/mod.ts";
import {
  CHECKPOINT_COMMITS,
  CHECKPOINT_FRAMES,
  openNativeExecutor,
  STATEMENT_CACHE_SIZE,
} from "../../../core/db/native_executor.ts";
import { type HranaServer, startHranaServer } from "../../fixtures/hrana_server.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { holdWriteLock } from "../../fixtures/write_lock.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-executor-");
/** Two timer turns: data_version is read at most once per event-loop turn. */
const nextTurn = () => nextTurns(2);
const servers: HranaServer[] = [];
const injected: { close(): void }[] = [];
after(async () => {
  for (const client of injected) client.close();
  for (const s of servers) await s.close();
  dir.remove();
});

const engines: [string, "native" | "client", () => Promise<Executor>][] = [
  [":memory:", "native", () => openDatabase(":memory:")],
  ["file:", "native", () => openDatabase(`file:${dir.file(`n${Math.random()}.db`)}`)],
  ["an injected client on a file", "client", () => {
    const client = createClient({ url: `file:${dir.file(`c${Math.random()}.db`)}` });
    injected.push(client);
    return openDatabase(client);
  }],
  ["remote http:// (Hrana fixture)", "client", async () => {
    const server = await startHranaServer(dir.file(`r${Math.random()}.db`), { authToken: "t" });
    servers.push(server);
    return openDatabase(server.url, { authToken: "t" });
  }],
];

for (const [name, engine, open] of engines) {
  describe(`Executor on ${name}`, () => {
    async function withTable(run: (db: Executor) => Promise<void>): Promise<void> {
      const db = await open();
      try {
        await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)");
        await run(db);
      } finally {
        db.close();
      }
    }

    test(`runs on the ${engine} engine`, async () => {
      const db = await open();
      assert.equal(db.engine, engine);
      db.close();
    });

    test("execute() returns plain rows by column name and counts changed rows", async () => {
      await withTable(async (db) => {
        const inserted = await db.execute({ sql: "INSERT INTO t (v) VALUES (?), (?)", args: ["a", "b"] });
        assert.equal(inserted.rowsAffected, 2);
        const rs = await db.execute({ sql: "SELECT id, v FROM t WHERE v >= ? ORDER BY id", args: ["a"] });
        assert.deepEqual(rs.rows.map((r) => ({ ...r })), [{ id: 1, v: "a" }, { id: 2, v: "b" }]);
        const returning = await db.execute({ sql: "UPDATE t SET v = v || '!' RETURNING id", args: [] });
        assert.equal(returning.rowsAffected, 2, "with RETURNING, the rows returned");
      });
    });

    test("an INSERT reports the rowid of the row it added, in execute() and in batch()", async () => {
      await withTable(async (db) => {
        const one = await db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["a"] });
        assert.equal(one.lastInsertRowid, 1);
        const [two, three] = await db.batch([
          { sql: "INSERT INTO t (v) VALUES (?)", args: ["b"] },
          { sql: "INSERT INTO t (v) VALUES (?), (?)", args: ["c", "d"] },
        ], "write");
        assert.equal(two.lastInsertRowid, 2);
        assert.equal(three.lastInsertRowid, 4, "the last row a statement added");
      });
    });

    test("batch() commits every statement or none", async () => {
      await withTable(async (db) => {
        const results = await db.batch([
          { sql: "INSERT INTO t (v) VALUES (?)", args: ["x"] },
          { sql: "SELECT COUNT(*) AS n FROM t", args: [] },
        ], "write");
        assert.equal(results[1].rows[0].n, 1);
        await assert.rejects(db.batch([
          { sql: "INSERT INTO t (v) VALUES (?)", args: ["y"] },
          { sql: "INSERT INTO t (v) VALUES (?)", args: ["x"] },
        ], "write"));
        assert.deepEqual((await db.execute("SELECT v FROM t")).rows.map((r) => r.v), ["x"]);
      });
    });

    test("transaction() commits on return, rolls back on a throw, and other statements wait for it", async () => {
      await withTable(async (db) => {
        await db.transaction(async (tx) => {
          await tx.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["kept"] });
        });
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["dropped"] });
            throw new Error("changed my mind");
          }),
          /changed my mind/,
        );
        assert.deepEqual((await db.execute("SELECT v FROM t")).rows.map((r) => r.v), ["kept"]);
        if (engine === "native") {
          let release!: () => void;
          const open = db.transaction(async (tx) => {
            await tx.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["inside"] });
            await new Promise<void>((r) => release = r);
          });
          const outside = db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["after"] });
          await nextTurns(5); // time for the outside statement to run, were it not queued
          release();
          await open;
          await outside;
          assert.deepEqual((await db.execute("SELECT v FROM t ORDER BY id")).rows.map((r) => r.v), [
            "kept",
            "inside",
            "after",
          ]);
        }
      });
    });

    test("a statement cache larger than its bound still runs every distinct statement", async () => {
      await withTable(async (db) => {
        for (let i = 0; i < STATEMENT_CACHE_SIZE + 20; i++) {
          await db.execute({ sql: `INSERT INTO t (v) VALUES (? || '${i}')`, args: ["s"] });
        }
        await db.execute({ sql: "INSERT INTO t (v) VALUES (? || '0')", args: ["again"] });
        assert.equal((await db.execute("SELECT COUNT(*) AS n FROM t")).rows[0].n, STATEMENT_CACHE_SIZE + 21);
      });
    });
  });
}

describe("opening a local database", () => {
  test("creates the missing parent folders of a file: database", async () => {
    const file = dir.file("deep/er/app.db");
    const db = await openDatabase(`file:${file}`);
    await db.execute("CREATE TABLE x (a)");
    db.close();
    assert.ok(existsSync(file));
  });

  test("rejects with a message saying what to fix when the file cannot be opened", async () => {
    const blocker = dir.file("not-a-folder");
    const db = await openDatabase(`file:${blocker}`);
    db.close();
    await assert.rejects(
      openDatabase(`file:${blocker}/inside.db`),
      (error: Error) => /Cannot open the database .*inside\.db.*Check that the path is right/s.test(error.message),
    );
  });

  test("dataVersion() changes after another connection commits, not after this one's", async () => {
    const url = `file:${dir.file("version.db")}`;
    const [a, b] = [await openDatabase(url), await openDatabase(url)];
    try {
      await a.execute("CREATE TABLE v (n)");
      await nextTurn();
      const before = a.dataVersion();
      await a.execute("INSERT INTO v VALUES (1)");
      await nextTurn();
      assert.equal(a.dataVersion(), before, "its own commit");
      assert.equal(a.dataVersion(), before, "read once per event-loop turn");
      await b.execute("INSERT INTO v VALUES (2)");
      assert.notEqual(a.dataVersion(), before, "another connection's commit in this process: at once");
      assert.equal((await openDatabase(":memory:")).dataVersion(), 0);
    } finally {
      a.close();
      b.close();
    }
  });
});

/**
 * A file database whose checkpoints run on its own connection once the turn is over (where no worker thread starts),
 * so that a test can tell when one has run; the rules that set when they run are the worker's too
 * (`checkpoint_worker_test.ts`).
 */
const checkpointedHere = (file: string) =>
  openNativeExecutor(`file:${file}`, { busyTimeoutMs: 5000, checkpointWorker: null });

describe("a file's WAL while other connections read", () => {
  test("is checkpointed after the commits, once the turn is over, and restarted: it does not grow while another connection reads around every commit", async () => {
    const file = dir.file("wal.db");
    const db = checkpointedHere(file);
    const reader = await openDatabase(`file:${file}`); // another node, in the middle of a read at each commit
    try {
      await db.execute("CREATE TABLE t (v BLOB)");
      const page = new Uint8Array(8192); // a row of three pages or so
      const commits = CHECKPOINT_COMMITS * 8;
      for (let i = 0; i < commits; i++) {
        await reader.transaction(async (tx) => {
          await tx.execute("SELECT count(*) FROM t");
          await db.batch([{ sql: "INSERT INTO t VALUES (?)", args: [page] }], "write");
        }, "read");
        await nextTurns(1);
      }
      // Written: about 3 × 800 pages (10 MB); a WAL never restarted holds them all.
      const wal = statSync(`${file}-wal`).size;
      assert.ok(wal < 4 * 1024 * 1024, `the WAL holds ${wal} bytes`);
      assert.equal(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n), commits);
    } finally {
      reader.close();
      db.close();
    }
  });
});

describe("a file's WAL under large commits", () => {
  test("is checkpointed after fewer commits when each writes many pages: about CHECKPOINT_FRAMES at a time, not CHECKPOINT_COMMITS commits' worth", async () => {
    const file = dir.file("large.db");
    const db = checkpointedHere(file);
    try {
      await db.execute("CREATE TABLE t (v BLOB)");
      const page = new Uint8Array(4000); // a row a page or so
      const rows = 40;
      // Past the first restart, two checkpoints that copy the whole WAL, then 90 commits (3,600 pages): counted from
      // the WAL's old size instead of its start, the pages written again read as none and the next checkpoint waits for
      // CHECKPOINT_COMMITS commits again.
      const commits = CHECKPOINT_COMMITS * 2 + 40;
      for (let i = 0; i < commits; i++) {
        await db.batch(
          Array.from({ length: rows }, () => ({ sql: "INSERT INTO t VALUES (?)", args: [page] })),
          "write",
        );
        await nextTurns(1);
      }
      // Written: about 40 pages a commit. After the first CHECKPOINT_COMMITS commits (about 4,000 pages), the next
      // checkpoints come every CHECKPOINT_FRAMES / 40 commits, every time; the WAL restarted after each holds no more.
      await db.batch([{ sql: "INSERT INTO t VALUES (?)", args: [page] }], "write");
      const [, frames] = Object.values((await db.execute("PRAGMA wal_checkpoint(PASSIVE)")).rows[0]).map(Number);
      assert.ok(frames < 2 * CHECKPOINT_FRAMES, `the WAL holds ${frames} pages since its last restart`);
      assert.equal(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n), commits * rows + 1);
    } finally {
      db.close();
    }
  });
});

describe("a file another connection holds the write lock of", () => {
  test("a write batch and a write transaction wait without blocking the event loop, commit once it is released, and report their wait", async () => {
    const url = `file:${dir.file("locked.db")}`;
    const waits: number[] = [];
    const db = await openDatabase(url, { onLockWait: (seconds) => waits.push(seconds) });
    const holder = await openDatabase(url);
    try {
      await db.execute("CREATE TABLE t (v TEXT)");
      // BEGIN IMMEDIATE: the write lock is held until it is released
      const release = await holdWriteLock(
        holder,
        (tx) => tx.execute({ sql: "INSERT INTO t VALUES (?)", args: ["holder"] }),
      );
      let settled = 0;
      const batch = db.batch([{ sql: "INSERT INTO t VALUES (?)", args: ["batch"] }], "write").finally(() => settled++);
      const transaction = db.transaction(
        (tx) => tx.execute({ sql: "INSERT INTO t VALUES (?)", args: ["transaction"] }),
        "write",
      ).finally(() => settled++);
      // The event loop turns while both wait (a blocking wait would have run out, and failed, before this line).
      await nextTurns(3);
      assert.equal(settled, 0);
      await release();
      await Promise.all([batch, transaction]);
      const rows = await db.execute("SELECT v FROM t ORDER BY v");
      assert.deepEqual(rows.rows.map((r) => r.v), ["batch", "holder", "transaction"]);
      // The batch waited for the lock; the transaction, behind it on this connection, began once it was done.
      assert.equal(waits.length, 1, "the wait for the lock is reported");
    } finally {
      holder.close();
      db.close();
    }
  });

  test("a statement sent while a write batch waits for the lock never runs inside that batch's transaction", async () => {
    const url = `file:${dir.file("queued.db")}`;
    const db = await openDatabase(url);
    const holder = await openDatabase(url);
    try {
      await db.execute("CREATE TABLE t (v TEXT NOT NULL)");
      const release = await holdWriteLock(holder);
      // The batch fails on its second statement, so its transaction is rolled back.
      const batch = db.batch([
        { sql: "INSERT INTO t VALUES (?)", args: ["batch"] },
        { sql: "INSERT INTO t VALUES (?)", args: [null] },
      ], "write");
      const statements = ["one", "two", "three"].map((v) => db.execute({ sql: "INSERT INTO t VALUES (?)", args: [v] }));
      await nextTurns(2);
      await release();
      await assert.rejects(batch);
      await Promise.all(statements);
      const rows = await db.execute("SELECT v FROM t ORDER BY v");
      assert.deepEqual(rows.rows.map((r) => r.v), ["one", "three", "two"]);
    } finally {
      holder.close();
      db.close();
    }
  });

  test("a SELECT sent while a write batch waits for the lock is read at once; a write sent then still waits for the batch", async () => {
    const url = `file:${dir.file("read_while_waiting.db")}`;
    // A read held behind the batch: both fail once the busy timeout runs out, not hang. Not a short one: the batch must
    // outlast what a loaded machine takes between its first try and the holder's release (500 ms was not a bound kept).
    const db = await openDatabase(url, { busyTimeoutMs: 5000 });
    const holder = await openDatabase(url);
    try {
      await db.execute("CREATE TABLE t (v TEXT NOT NULL)");
      await db.execute("INSERT INTO t VALUES ('before')");
      const release = await holdWriteLock(holder);
      const order: string[] = [];
      const batch = db.batch([{ sql: "INSERT INTO t VALUES (?)", args: ["batch"] }], "write")
        .then(() => order.push("batch"));
      await nextTurns(2); // the batch has found the file locked and waits
      const write = db.execute({ sql: "INSERT INTO t VALUES (?)", args: ["write"] }).then(() => order.push("write"));
      const read = await db.execute("SELECT v FROM t ORDER BY v");
      order.push("read");
      assert.deepEqual(
        read.rows.map((r) => r.v),
        ["before"],
        "the read saw what was committed, outside any transaction",
      );
      await release();
      await Promise.all([batch, write]);
      assert.deepEqual(order, ["read", "batch", "write"]);
    } finally {
      holder.close();
      db.close();
    }
  });
});

describe("a file's busy timeout", () => {
  test("a write leaves it at 0 for the next write, and a statement, a read batch, a read transaction and a deferred batch after a write run with it set", async () => {
    const db = await openDatabase(`file:${dir.file("busy_timeout.db")}`, { busyTimeoutMs: 1234 });
    const timeout = (rows: { rows: Record<string, unknown>[] }) => rows.rows[0].timeout;
    const write = () => db.batch([{ sql: "INSERT INTO t VALUES (?)", args: ["w"] }], "write");
    try {
      await db.execute("CREATE TABLE t (v TEXT)");
      assert.equal(timeout(await db.execute("PRAGMA busy_timeout")), 1234);
      await write();
      // Inside a write transaction nothing waits (it holds the lock): the BEGIN IMMEDIATE ran without a timeout.
      assert.equal(await db.transaction((tx) => tx.execute("PRAGMA busy_timeout").then(timeout), "write"), 0);
      assert.equal(timeout(await db.execute("PRAGMA busy_timeout")), 1234);
      await write();
      assert.equal(timeout((await db.batch(["PRAGMA busy_timeout"], "read"))[0]), 1234);
      await write();
      assert.equal(await db.transaction((tx) => tx.execute("PRAGMA busy_timeout").then(timeout), "read"), 1234);
      await write();
      assert.equal(timeout((await db.batch(["PRAGMA busy_timeout"], "deferred"))[0]), 1234);
      assert.equal((await db.execute("SELECT COUNT(*) AS n FROM t")).rows[0].n, 4);
    } finally {
      db.close();
    }
  });
});
