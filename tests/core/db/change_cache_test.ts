// The change cache serves a row until the database may have changed under it.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { openDatabase } from "../../../core/db/mod.ts";
import { createChangeCache, REMOTE_STALENESS_MS } from "../../../core/db/mod.ts";
import type { Executor } from "../../../core/db/mod.ts";
import { type HranaServer, startHranaServer } from "../../fixtures/hrana_server.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { nextTurns } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-change-cache-");
let hrana: HranaServer | undefined;
after(async () => {
  await hrana?.close();
  dir.remove();
});

async function value(db: Executor): Promise<string> {
  return String((await db.execute("SELECT v FROM kv WHERE k = 'a'")).rows[0].v);
}

describe("createChangeCache", () => {
  test("serves the cached row until another connection to the file commits, then reads again in the next turn", async () => {
    const url = `file:${dir.file("local.db")}`;
    const [mine, other] = [await openDatabase(url), await openDatabase(url)];
    try {
      await mine.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)");
      await mine.execute("INSERT INTO kv VALUES ('a', 'one')");
      const cache = createChangeCache<string, string>(mine, { size: 10 });
      let reads = 0;
      const read = () => cache.read("a", () => (reads++, value(mine)));
      assert.equal(await read(), "one");
      assert.equal(await read(), "one");
      assert.equal(reads, 1, "the second read is served from the cache");
      await other.execute("UPDATE kv SET v = 'two'");
      // The next request comes in a later event-loop turn (data_version is read once per turn).
      await nextTurns(2);
      assert.equal(await read(), "two");
      assert.equal(reads, 2);
    } finally {
      mine.close();
      other.close();
    }
  });

  test("with a version of what it holds, keeps its rows while other connections commit elsewhere, drops them when the version moves", async () => {
    const url = `file:${dir.file("versioned.db")}`;
    const [mine, other] = [await openDatabase(url), await openDatabase(url)];
    try {
      await mine.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)");
      await mine.execute("CREATE TABLE kv_version (seq INTEGER NOT NULL)");
      await mine.execute("CREATE TABLE elsewhere (v TEXT)");
      await mine.execute("INSERT INTO kv VALUES ('a', 'one')");
      await mine.execute("INSERT INTO kv_version VALUES (0)");
      let versions = 0;
      const cache = createChangeCache<string, string>(mine, {
        size: 10,
        changes: async () => (versions++, (await mine.execute("SELECT seq FROM kv_version")).rows[0].seq),
      });
      let reads = 0;
      const read = () => cache.read("a", () => (reads++, value(mine)));
      assert.equal(await read(), "one");
      await other.execute("INSERT INTO elsewhere VALUES ('x')"); // the first change read learns the version
      await nextTurns(2);
      assert.equal(await read(), "one");
      reads = versions = 0;
      for (let i = 0; i < 3; i++) {
        await other.execute("INSERT INTO elsewhere VALUES ('x')");
        await nextTurns(2);
        // A turn's callers share the one read of the version.
        assert.deepEqual(await Promise.all([read(), read(), read()]), ["one", "one", "one"]);
      }
      assert.deepEqual({ reads, versions }, { reads: 0, versions: 3 }, "one version read a commit, no row read again");
      await other.batch(["UPDATE kv SET v = 'two'", "UPDATE kv_version SET seq = seq + 1"], "write");
      await nextTurns(2);
      assert.equal(await read(), "two");
      assert.equal(reads, 1);
    } finally {
      mine.close();
      other.close();
    }
  });

  test("a delete while a read is in flight keeps that read out of the cache", async () => {
    const db = await openDatabase(":memory:");
    const cache = createChangeCache<string, string>(db, { size: 10 });
    let release!: (v: string) => void;
    const inFlight = cache.read("k", () => new Promise<string>((r) => release = r));
    cache.delete("k");
    release("stale");
    assert.equal(await inFlight, "stale");
    assert.equal(await cache.read("k", () => Promise.resolve("fresh")), "fresh");
    db.close();
  });

  test("keeps at most `size` entries, dropping the oldest", async () => {
    const db = await openDatabase(":memory:");
    const cache = createChangeCache<number, number>(db, { size: 2 });
    for (const k of [1, 2, 3]) await cache.read(k, () => Promise.resolve(k));
    let reread = false;
    await cache.read(1, () => (reread = true, Promise.resolve(1)));
    assert.ok(reread, "the oldest entry was dropped");
    db.close();
  });

  test(`on a remote database, serves a row for at most ${REMOTE_STALENESS_MS} ms`, async () => {
    hrana = await startHranaServer(dir.file("remote.db"));
    const [mine, other] = [await openDatabase(hrana.url), await openDatabase(hrana.url)];
    try {
      await mine.execute("CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)");
      await mine.execute("INSERT INTO kv VALUES ('a', 'one')");
      let now = 0;
      const cache = createChangeCache<string, string>(mine, { size: 10, now: () => now });
      assert.equal(await cache.read("a", () => value(mine)), "one");
      await other.execute("UPDATE kv SET v = 'two'");
      now = REMOTE_STALENESS_MS - 1;
      assert.equal(await cache.read("a", () => value(mine)), "one", "served from the cache within the bound");
      now = REMOTE_STALENESS_MS;
      assert.equal(await cache.read("a", () => value(mine)), "two");
    } finally {
      mine.close();
      other.close();
    }
  });
});
