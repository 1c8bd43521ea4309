// The outbox keeps nothing forever: set-aside violation reports are deleted
// after their retention and the reports are bounded in number, each deletion
// logged with its count (never a report's text); key records are never deleted
// unsent. On real libSQL, with a controlled clock and a cloud that cannot be
// reached.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AppStorage } from "../../../core/app/storage/mod.ts";
import { createCloudClient } from "../../../core/cloud_link/mod.ts";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { createOutbox, OUTBOX_LIMIT, OUTBOX_SET_ASIDE_RETENTION_MS } from "../../../core/cloud_link/mod.ts";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { newViolation, type Violation } from "../../../core/contract/mod.ts";

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2025-06-30T00:00:00.000Z");
const unreachable = createCloudClient({ endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x" });

function report(daysAgo: number, message: string): Violation {
  return {
    ...newViolation("FORBIDDEN_SCOPE", { keyId: crypto.randomUUID(), userId: "ann", message }),
    createdAt: new Date(NOW - daysAgo * DAY).toISOString(),
  };
}

/** Queues the reports, set aside as the cloud refused them when `refused`. */
async function queue(storage: AppStorage, reports: Violation[], refused: boolean): Promise<void> {
  await storage.insertViolations(reports, { mirror: true });
  const ids = new Set(reports.map((r) => r.id));
  const seqs = (await storage.outboxHead(10_000)).filter((i) => ids.has(i.ref)).map((i) => i.seq);
  if (refused) await storage.outboxSetAside(seqs, "VALIDATION_ERROR: Invalid request");
}

test("the outbox keeps set-aside reports 7 days and at most 10,000 reports by default", () => {
  assert.equal(OUTBOX_SET_ASIDE_RETENTION_MS, 7 * DAY);
  assert.equal(OUTBOX_LIMIT, 10_000);
});

test("deletes reports set aside longer than the retention, logging how many, and keeps recent ones and key records", async () => {
  const storage = await openAppStorage(":memory:");
  const logged: string[] = [];
  const { record } = await mintAgentKey("ann", { name: "k", scopes: [], agentId: "ann" });
  await storage.insertKey({ ...record, createdAt: new Date(NOW - 30 * DAY).toISOString() }, "user", { mirror: true });
  for (let i = 0; i < 50; i++) await storage.outboxFailed((await storage.outboxHead(1)).map((item) => item.seq));
  const old = [report(8, "secret-ish text 1"), report(9, "secret-ish text 2")];
  const recent = report(6, "secret-ish text 3");
  await queue(storage, [...old, recent], true);
  const outbox = createOutbox({
    storage,
    cloud: unreachable,
    log: (message) => logged.push(message),
    retryMinMs: 60_000,
    now: () => NOW,
  });
  await outbox.purge(); // the app's retention calls it at start and hourly
  await outbox.close();
  assert.deepEqual((await storage.outboxHead(100)).map((i) => i.ref), [record.id], "the key record (failed 50 times)");
  assert.deepEqual(await outbox.setAside(), {
    count: 1,
    reasons: [{ reason: "VALIDATION_ERROR: Invalid request", count: 1 }],
  }, "the recent set-aside report stays");
  assert.equal(outbox.stats.expired, 2);
  const line = logged.find((l) => l.includes("deleted from the outbox"));
  assert.ok(line?.startsWith("2 violation reports the cloud refused were deleted"), String(line));
  assert.ok(!logged.join("\n").includes("secret-ish"), "no report's text is logged");
  await storage.close();
});

test("keeps at most `limit` reports while the cloud is down, dropping the oldest and logging how many", async () => {
  const storage = await openAppStorage(":memory:");
  const logged: string[] = [];
  const setAside = [report(2, "a"), report(2, "b")];
  const waiting = Array.from({ length: 10 }, (_, n) => report(1, `w${n}`));
  await queue(storage, setAside, true);
  await queue(storage, waiting, false);
  const outbox = createOutbox({
    storage,
    cloud: unreachable,
    log: (message) => logged.push(message),
    retryMinMs: 60_000,
    limit: 5,
    now: () => NOW,
  });
  await outbox.purge();
  await outbox.close();
  const refs = (await storage.outboxHead(100)).map((i) => i.ref);
  assert.deepEqual(refs, waiting.slice(5).map((v) => v.id), "set-aside reports went first, then the oldest waiting");
  assert.equal(outbox.stats.overLimit, 7);
  assert.ok(logged.some((l) => l.startsWith("7 violation reports were dropped from the outbox, over its limit of 5")));
  await storage.close();
});

test("a failed send leaves the purge to the app's retention: the outbox is not counted on every retry", async () => {
  const storage = await openAppStorage(":memory:");
  let purges = 0;
  const purgeOutbox = storage.purgeOutbox.bind(storage);
  storage.purgeOutbox = (options) => (purges++, purgeOutbox(options));
  await queue(storage, [report(1, "a")], false);
  const outbox = createOutbox({ storage, cloud: unreachable, log: () => {}, retryMinMs: 60_000, now: () => NOW });
  assert.equal(await outbox.sync(), 1, "the send failed and the report waits");
  await outbox.close();
  assert.equal(purges, 0, "neither at start nor after the failed send");
  assert.equal((await storage.outboxHead(10))[0].attempts, 2, "both tries were counted");
  await storage.close();
});
