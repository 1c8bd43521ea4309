// The app's own violations are kept for a retention (30 days by default, as at
// the cloud), purged at start and then periodically, in the background. On
// real libSQL, with a controlled clock: no test waits for the wall clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startRetention } from "../../../core/app/mod.ts";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { createCloudClient } from "../../../core/cloud_link/mod.ts";
import { createOutbox } from "../../../core/cloud_link/mod.ts";
import { DEFAULT_VIOLATION_RETENTION_MS, newViolation, type Violation } from "../../../core/contract/mod.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";
import { ulid } from "ulid";

const DAY = 24 * 60 * 60 * 1000;
const T0 = Date.parse("2025-06-01T00:00:00.000Z");

function madeAt(ms: number): Violation {
  return {
    ...newViolation("REVOKED_KEY", { keyId: crypto.randomUUID(), userId: "ann", message: "m" }),
    createdAt: new Date(ms).toISOString(),
  };
}

test("the app keeps its violations 30 days by default, as the cloud does", () => {
  assert.equal(DEFAULT_VIOLATION_RETENTION_MS, 30 * DAY);
});

test("purges violations older than the retention at start, keeping the rest", async () => {
  const storage = await openAppStorage(":memory:");
  const [old, kept] = [madeAt(T0 - 31 * DAY), madeAt(T0 - 29 * DAY)];
  await storage.insertViolations([old, kept]);
  const retention = startRetention({ storage, log: () => {}, now: () => T0 });
  await retention.close(); // waits for the purge made at start
  assert.deepEqual((await storage.listViolations({ limit: 10 })).map((v) => v.id), [kept.id]);
  await storage.close();
});

test("purges again every interval, as the clock moves on", async () => {
  const storage = await openAppStorage(":memory:");
  const v = madeAt(T0);
  await storage.insertViolations([v]);
  let reads = 0;
  let secondPass = () => {};
  const second = new Promise<void>((resolve) => secondPass = resolve);
  const retention = startRetention({
    storage,
    log: () => {},
    violationRetentionMs: 2 * DAY,
    purgeIntervalMs: 5,
    now: () => {
      if (++reads === 2) secondPass();
      return reads === 1 ? T0 + DAY : T0 + 3 * DAY; // at the first pass the violation is a day old, then three
    },
  });
  const keepAlive = setInterval(() => {}, 1000); // the purge timer is unreferenced: hold the event loop meanwhile
  await second;
  clearInterval(keepAlive);
  await retention.close(); // waits for the second pass
  assert.deepEqual(await storage.listViolations({ limit: 10 }), []);
  await storage.close();
});

test("logs a failed purge and goes on", async () => {
  const storage = await openAppStorage(":memory:");
  await storage.close();
  const logged: string[] = [];
  const retention = startRetention({ storage, log: (message) => logged.push(message), now: () => T0 });
  await retention.close();
  assert.deepEqual(logged, ["purging old violations failed"]);
});

test("purges the outbox once at start, however the outbox's start and the retention's interleave", async () => {
  const storage = await openAppStorage(":memory:");
  let purges = 0;
  const purgeOutbox = storage.purgeOutbox.bind(storage);
  storage.purgeOutbox = (options) => (purges++, purgeOutbox(options));
  const cloud = createCloudClient({ endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x" });
  const outbox = createOutbox({ storage, cloud, log: () => {}, retryMinMs: 60_000, now: () => T0 });
  await outbox.sync(); // the outbox has started and done what it does at start
  const retention = startRetention({ storage, outbox, log: () => {}, now: () => T0 });
  await retention.close();
  await outbox.close();
  assert.equal(purges, 1, "by the retention only");
  await storage.close();
});

test("purges activity records older than their retention, keeping the rest, only when given one", async () => {
  const storage = await openAppStorage(":memory:");
  const made = (ms: number): ActivityRecord => ({
    id: `act_${ulid(ms)}`,
    at: new Date(ms).toISOString(),
    keyId: "key_1",
    userId: "ann",
    agentId: null,
    intent: "notes.list",
    via: "http",
    outcome: "ok",
    status: 200,
    ms: 1,
  });
  const [old, kept] = [made(T0 - 31 * DAY), made(T0 - 29 * DAY)];
  await storage.insertActivity([old, kept], { keep: true, mirror: false });
  const listed = async () => (await storage.listActivity({ userId: "ann", limit: 10 })).map((r) => r.id);
  await startRetention({ storage, log: () => {}, now: () => T0 }).close();
  assert.deepEqual(await listed(), [kept.id, old.id], "without an activity retention nothing is purged");
  await startRetention({ storage, log: () => {}, now: () => T0, activityRetentionMs: 30 * DAY }).close();
  assert.deepEqual(await listed(), [kept.id]);
  await storage.close();
});
