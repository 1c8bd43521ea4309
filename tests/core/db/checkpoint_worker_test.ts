// A file's WAL checkpoints run in a worker thread, on a second connection to the file, not on the event loop
// (issue 41: a checkpoint's two fsyncs held the event loop 10-190 ms every second or so under an app recording activity);
// where no worker starts, they run on the connection as before, and the process says so once.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { openDatabase } from "../../../core/db/mod.ts";
import type { Executor } from "../../../core/db/mod.ts";
import { CHECKPOINT_COMMITS, nextCheckpoint, openNativeExecutor } from "../../../core/db/native_executor.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-checkpoint-worker-");
after(() => dir.remove());

/**
 * The WAL's pages and the pages of it copied into the database file, read from the WAL index (`-shm`: `mxFrame` at
 * byte 16 of its header, `nBackfill` at byte 96), which reading does not change, unlike a checkpoint.
 */
function walIndex(file: string): { frames: number; copied: number } {
  const bytes = readFileSync(`${file}-shm`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { frames: view.getUint32(16, true), copied: view.getUint32(96, true) };
}

/** Commits enough single-row writes (a page or so each) for a checkpoint to be due. */
async function writeUntilCheckpointDue(db: Executor): Promise<void> {
  await db.execute("CREATE TABLE t (v BLOB)");
  const page = new Uint8Array(4000);
  for (let i = 0; i < CHECKPOINT_COMMITS + 10; i++) {
    await db.batch([{ sql: "INSERT INTO t VALUES (?)", args: [page] }], "write");
  }
}

describe("a file's WAL checkpoint", () => {
  test("is run by a worker thread: the WAL is copied while the main thread never yields", async () => {
    const file = dir.file("worker.db");
    const db = await openDatabase(`file:${file}`);
    try {
      await writeUntilCheckpointDue(db);
      assert.equal(walIndex(file).copied, 0, "nothing copied yet");
      // A synchronous loop: no turn of the event loop passes, so nothing on this thread can checkpoint meanwhile.
      let index = walIndex(file);
      for (let looks = 0; index.copied === 0 && looks < 500_000; looks++) index = walIndex(file);
      assert.ok(index.copied > 0, "the WAL was copied while this thread was busy");
      assert.equal(index.copied, index.frames);
      assert.equal(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n), CHECKPOINT_COMMITS + 10);
    } finally {
      db.close();
    }
  });

  test("a worker that cannot start leaves the checkpoints to the connection itself, and the process says so once", async () => {
    const warned: string[] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warned.push(args.map(String).join(" "));
    const missing = new URL("./no_such_checkpoint_worker.ts", import.meta.url);
    const files = [dir.file("fallback-1.db"), dir.file("fallback-2.db")];
    const dbs = files.map((file) =>
      openNativeExecutor(`file:${file}`, { busyTimeoutMs: 5000, checkpointWorker: missing })
    );
    try {
      for (const [i, db] of dbs.entries()) {
        await writeUntilCheckpointDue(db);
        await waitFor(`the WAL of ${files[i]} to be checkpointed`, () => walIndex(files[i]).copied > 0);
      }
      assert.equal(warned.length, 1, warned.join("\n"));
      assert.match(
        warned[0],
        /WAL checkpoints and set-aside writes \(activity records\) of file databases run on the event loop: no worker thread/,
      );
      for (const db of dbs) assert.equal(Number((await db.execute("SELECT count(*) AS n FROM t")).rows[0].n), 110);
    } finally {
      console.warn = warn;
      for (const db of dbs) db.close();
    }
  });
});

describe("the commits to the next checkpoint", () => {
  test("a WAL a worker copied whole while the connection committed is not counted as started over: its growth sets the next", () => {
    // Single events at one connection: ~4 pages a commit, the WAL at 2,387 pages (not started over: every checkpoint
    // ran while commits landed). Counted from 0, the next 3 commits read as 2,411 pages written: a checkpoint a commit.
    const grown = nextCheckpoint(2_387, 3, { frames: 2_411, copied: 2_411, restarted: false }, true);
    assert.deepEqual(grown, { walFrames: 2_411, every: CHECKPOINT_COMMITS });
    const steady = nextCheckpoint(2_411, CHECKPOINT_COMMITS, { frames: 2_811, copied: 2_811, restarted: false }, true);
    assert.deepEqual(steady, { walFrames: 2_811, every: CHECKPOINT_COMMITS }); // 400 pages in 100 commits: the most
  });

  test("a WAL copied whole with no commit meanwhile, or restarted, is counted from 0; large commits come due sooner", () => {
    assert.deepEqual(nextCheckpoint(900, 100, { frames: 1_300, copied: 1_300, restarted: false }, false), {
      walFrames: 0,
      every: 100,
    });
    assert.deepEqual(nextCheckpoint(3_000, 10, { frames: 5_000, copied: 4_000, restarted: true }, true), {
      walFrames: 0,
      every: 5, // 2,000 pages in 10 commits: about 1,000 pages is 5 commits
    });
    // The WAL started over since the last look (smaller now): all of it was written by those commits.
    assert.deepEqual(nextCheckpoint(2_000, 20, { frames: 600, copied: 300, restarted: false }, true), {
      walFrames: 600,
      every: 33,
    });
  });
});
