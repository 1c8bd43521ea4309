// The activity log's group writer: a run only pushes onto a bounded buffer; records are minted (act_ + ULID from the
// runtime's clock and randomness) and written in groups of at most 500, on a timer, on flush and on close; a full
// buffer drops and counts, a failed write is logged and counted, and nothing is recorded after close.
import { test } from "node:test";
import { connect, createServer } from "node:net";
import type { AddressInfo } from "node:net";
import assert from "node:assert/strict";
import { decodeTime } from "ulid";
import { createActivityLog } from "../../../core/activity/mod.ts";
import type { ActivityLogOptions, ActivityRun } from "../../../core/activity/activity_log.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";
import { activityRecordSchema } from "../../../core/contract/mod.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { activityRun } from "../../fixtures/activity_records.ts";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const RUN: ActivityRun = activityRun({ ms: 1.23456 });

function logWith(overrides: Partial<ActivityLogOptions> = {}) {
  const groups: ActivityRecord[][] = [];
  const logged: string[] = [];
  const log = createActivityLog({
    write: (records) => Promise.resolve(void groups.push(records)),
    read: () => Promise.resolve({ activity: [], nextCursor: null }),
    clientNames: (ids) => Promise.resolve(new Map(ids.map((id) => [id, `client of ${id}`]))),
    runtime: { now: () => T0, random: () => 0.5, elapsed: () => 0 },
    log: (message) => void logged.push(message),
    flushMs: 60_000,
    ...overrides,
  });
  return { log, groups, logged };
}

test("a record is minted from the runtime's clock and randomness, with the contract's fields and no more", async () => {
  const { log, groups } = logWith();
  log.record({ ...RUN, key: { ...RUN.key, grantId: "grant_1" }, status: 202, approvalId: "apr_1" });
  assert.equal(groups.length, 0, "nothing is written on the request path");
  await log.flush();
  const [[record]] = groups;
  assert.equal(activityRecordSchema.safeParse(record).success, true);
  assert.equal(decodeTime(record.id.slice(4)), T0);
  assert.deepEqual({ ...record, id: undefined }, {
    id: undefined,
    at: new Date(T0).toISOString(),
    keyId: "key_1",
    userId: "alice",
    agentId: "agt_1",
    intent: "notes.list",
    via: "http",
    outcome: "pending_approval",
    status: 202,
    ms: 1.235,
    client: "client of grant_1",
    approvalId: "apr_1",
  });
});

test("an intent that is no text, or holds a secret, is not kept as sent", async () => {
  const { log, groups } = logWith();
  log.record({ ...RUN, intent: 42 });
  log.record({ ...RUN, intent: "x".repeat(500) });
  log.record({ ...RUN, intent: "run svc_live_abcdefghijklmnopqrstuvwxyz012345 now" });
  await log.flush();
  const [unknown, long, secret] = groups[0].map((r) => r.intent);
  assert.equal(unknown, "(unknown)");
  assert.equal(long.length, 200);
  assert.ok(!secret.includes("abcdefghijklmnopqrstuvwxyz012345"), secret);
});

test("the runs of one group keep their own intent and time, repeated or not", async () => {
  let now = T0;
  const { log, groups } = logWith({ runtime: { now: () => now, random: () => 0.5, elapsed: () => 0 } });
  const sent = ["a.b", "a.b", undefined, "a.b", 7, "c.d", "c.d", "a.b"];
  const times = [0, 0, 0, 1, 1, 1, 5, 0];
  sent.forEach((intent, i) => {
    now = T0 + times[i];
    log.record({ ...RUN, intent });
  });
  await log.flush();
  assert.deepEqual(groups[0].map((r) => r.intent), [
    "a.b",
    "a.b",
    "(unknown)",
    "a.b",
    "(unknown)",
    "c.d",
    "c.d",
    "a.b",
  ]);
  assert.deepEqual(groups[0].map((r) => r.at), times.map((t) => new Date(T0 + t).toISOString()));
});

test("records are written in groups of at most 500", async () => {
  const { log, groups } = logWith();
  for (let i = 0; i < 1_200; i++) log.record(RUN);
  await log.flush();
  assert.deepEqual(groups.map((g) => g.length), [500, 500, 200]);
});

test("between two groups the event loop turns: what arrived meanwhile runs before the next group is written", async () => {
  const { log, groups } = logWith();
  for (let i = 0; i < 1_200; i++) log.record(RUN);
  const seen: number[] = [];
  const written = log.flush();
  await Promise.resolve();
  setImmediate(() => seen.push(groups.length));
  await written;
  assert.deepEqual(groups.map((g) => g.length), [500, 500, 200]);
  assert.deepEqual(seen, [1], "a task of the next turn ran after the first group, before the second");
});

test("between two groups the runtime reads its sockets: bytes that arrived meanwhile are read before the next group", async () => {
  // On Deno an immediate runs before the runtime polls its sockets again: yielding with one between groups, the requests
  // that arrived during a flush waited for every group (a run's p99 with activity 24 ms against 9-12, bench app).
  const server = createServer();
  const readAt: number[] = [];
  server.on("connection", (socket) => socket.on("data", () => readAt.push(groups.length)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const client = connect(port, "127.0.0.1");
  await new Promise<void>((resolve) => client.once("connect", () => resolve()));
  const { log, groups } = logWith();
  try {
    for (let i = 0; i < 2_500; i++) log.record(RUN);
    client.write("x"); // on the wire before the first group is written, read by the server at its next poll
    await log.flush();
    assert.deepEqual(groups.map((g) => g.length), [500, 500, 500, 500, 500]);
    await waitFor("the byte to be read", () => readAt.length > 0);
    // Four turns between the groups: the byte is read in one of them, not after the last group.
    assert.ok(readAt[0] < 5, `the byte was read after group ${readAt[0]} of 5`);
  } finally {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("records wait at most the flush delay: the timer writes them", async () => {
  const { log, groups } = logWith({ flushMs: 1 });
  log.record(RUN);
  await waitFor("the timer's write", () => groups.length === 1);
  await log.close();
});

test("the buffer's bound counts the runs a write under way has taken", async () => {
  const held: (() => void)[] = [];
  const written: ActivityRecord[] = [];
  const { log } = logWith({
    limit: 600,
    write: (records) => new Promise((resolve) => held.push(() => resolve(void written.push(...records)))),
  });
  for (let i = 0; i < 500; i++) log.record(RUN);
  const first = log.flush(); // taken by a write that does not end yet
  await waitFor("the write to start", () => held.length === 1, 50);
  for (let i = 0; i < 200; i++) log.record(RUN);
  assert.equal(log.dropped, 100, "500 taken and 100 waiting fill the bound of 600");
  held.shift()!();
  await first;
  const flushed = log.flush();
  await waitFor("the second write", () => held.length === 1, 50);
  held.shift()!();
  await flushed;
  assert.equal(written.length, 600);
  for (let i = 0; i < 600; i++) log.record(RUN); // written runs no longer count
  assert.equal(log.dropped, 100);
  const closed = log.close();
  for (const group of ["500", "100"]) {
    await waitFor(`the write of ${group}`, () => held.length === 1, 50);
    held.shift()!();
  }
  await closed;
  assert.equal(written.length, 1_200);
});

test("a full buffer drops the run and counts it, without waiting", async () => {
  const { log, groups } = logWith({ limit: 2 });
  for (let i = 0; i < 5; i++) log.record(RUN);
  assert.equal(log.dropped, 3);
  await log.flush();
  assert.equal(groups.flat().length, 2);
});

test("a failed write is logged and counted; the next group is written", async () => {
  let fail = true;
  const written: ActivityRecord[] = [];
  const { log, logged } = logWith({
    write: (records) => {
      if (fail) return Promise.reject(new Error("disk full"));
      written.push(...records);
      return Promise.resolve();
    },
  });
  log.record(RUN);
  await log.flush();
  assert.equal(log.dropped, 1);
  assert.match(logged[0], /1 activity records could not be written/);
  fail = false;
  log.record(RUN);
  await log.flush();
  assert.equal(written.length, 1);
});

test("close writes what waits; a run after it is not recorded", async () => {
  const { log, groups } = logWith();
  log.record(RUN);
  await log.close();
  log.record(RUN);
  await log.flush();
  assert.equal(groups.flat().length, 1);
  assert.equal(log.dropped, 1);
});
