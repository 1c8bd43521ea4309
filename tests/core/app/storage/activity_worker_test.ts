// The app's activity groups on a `file:` database are written by the file's worker thread (issue 41: their inserts
// held the event loop 4-16 µs a run), with every promise of the activity log kept: flush resolves once the records are
// committed and listed by the app's own connection, close writes what waits, a group refused by another process's
// write lock is logged and counted and the next one is written, records kept and queued for the cloud alike.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createActivityLog } from "../../../../core/activity/mod.ts";
import type { ActivityRun } from "../../../../core/activity/activity_log.ts";
import type { ActivityWrite } from "../../../../core/app/storage/libsql_activity.ts";
import { type AppStorage, openAppStorage } from "../../../../core/app/storage/mod.ts";
import { openDatabase, storageFailure } from "../../../../core/db/mod.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";
import { activityRun } from "../../../fixtures/activity_records.ts";
import { holdWriteLock } from "../../../fixtures/write_lock.ts";

const dir = tempDir("svc-activity-worker-");
after(() => dir.remove());

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const RUN: ActivityRun = activityRun();

/** The activity log as the app builds it over its storage (`assemble_routes.ts`), a manual flush. */
function activityOf(storage: AppStorage, where: ActivityWrite = { keep: true, mirror: false }) {
  const logged: { message: string; error: unknown }[] = [];
  let at = T0;
  const log = createActivityLog({
    write: (records) => storage.insertActivity(records, where),
    read: () => Promise.resolve({ activity: [], nextCursor: null }),
    clientNames: (grantIds) => storage.grantClientNames(grantIds),
    runtime: { now: () => at++, random: () => 0.5, elapsed: () => 0 },
    log: (message, error) => void logged.push({ message, error }),
    flushMs: 60_000,
  });
  return { log, logged };
}

const counted = async (storage: AppStorage, table: string) =>
  Number((await storage.db.execute(`SELECT count(*) AS n FROM ${table}`)).rows[0].n);

describe("the activity of an app on a file", () => {
  test("is written by another connection (the worker's): once flushed it is listed here, and data_version moved", async () => {
    const storage = await openAppStorage(`file:${dir.file("flushed.db")}`);
    try {
      const { log, logged } = activityOf(storage);
      for (let i = 0; i < 3; i++) log.record(RUN);
      const version = storage.db.dataVersion();
      await log.flush();
      const listed = await storage.listActivity({ userId: "alice", limit: 10 });
      assert.equal(listed.length, 3);
      assert.deepEqual(listed.map((r) => r.intent), ["notes.list", "notes.list", "notes.list"]);
      // data_version moves only for another connection's commit: the app's own connection would leave it.
      assert.notEqual(storage.db.dataVersion(), version);
      assert.deepEqual(logged, []);
    } finally {
      await storage.close();
    }
  });

  test("kept and queued for the cloud in one write, in groups of 500; close writes what waits", async () => {
    const file = dir.file("closed.db");
    const storage = await openAppStorage(`file:${file}`);
    const { log } = activityOf(storage, { keep: true, mirror: true });
    for (let i = 0; i < 1_201; i++) log.record(RUN);
    await log.close();
    await storage.close();
    const again = await openAppStorage(`file:${file}`);
    try {
      assert.equal(await counted(again, "app_activity"), 1_201);
      assert.equal(await counted(again, "app_outbox"), 1_201);
      assert.equal(log.dropped, 0);
    } finally {
      await again.close();
    }
  });

  test("a group refused by another process's write lock is logged and counted; the next group is written", async () => {
    const url = `file:${dir.file("locked.db")}`;
    const storage = await openAppStorage(url, { busyTimeoutMs: 100 });
    const holder = await openDatabase(url); // another process, in effect
    try {
      const { log, logged } = activityOf(storage);
      const release = await holdWriteLock(holder);
      log.record(RUN);
      log.record(RUN);
      await log.flush();
      await release();
      assert.equal(log.dropped, 2);
      assert.equal(logged.length, 1);
      assert.match(logged[0].message, /2 activity records could not be written/);
      assert.equal(storageFailure(logged[0].error), "busy", String(logged[0].error));
      log.record(RUN);
      await log.flush();
      assert.equal(await counted(storage, "app_activity"), 1);
    } finally {
      holder.close();
      await storage.close();
    }
  });
});
