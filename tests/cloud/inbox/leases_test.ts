import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { waitingPolls } from "../../../cloud/create_cloud.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";

interface Item {
  inboxId: number;
  eventId: string;
  deliveries: number;
  leaseId: string;
  leaseExpiresAt: string;
}

const START = Date.parse("2026-03-01T12:00:00.000Z");

describe("the inbox as a queue: GET /v1/agent/inbox?lease, leases/extend, leases/release, ack by lease", () => {
  let t: TestCloud;
  let clock = START;
  before(async () => {
    t = await startTestCloud({ now: () => clock });
  });
  after(() => t.close());

  /** A fresh agent with `n` events in its inbox. */
  const agentWith = async (n: number) => {
    const name = `q-${crypto.randomUUID().slice(0, 8)}`;
    const { key } = await t.mintKey(name);
    const events = Array.from({ length: n }, (_, i) => event(`${name}-${i}`, name));
    if (n > 0) await t.sdk("POST", "/v1/events/batch", { body: { events } });
    return { key, name };
  };
  const lease = async (key: string, query: string): Promise<Item[]> => {
    const res = await t.agent(key, "GET", `/v1/agent/inbox?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.items;
  };
  const ids = (items: { eventId: string }[]) => items.map((i) => i.eventId);

  test("a leased item carries its lease and is hidden from every other poll until the lease ends", async () => {
    const { key, name } = await agentWith(3);
    const [first] = await lease(key, "lease=30&limit=1");
    assert.equal(first.eventId, `${name}-0`);
    assert.equal(first.deliveries, 1);
    assert.equal(first.leaseExpiresAt, new Date(clock + 30_000).toISOString());
    assert.ok(first.leaseId.length > 10);
    assert.deepEqual(ids(await lease(key, "lease=30")), [`${name}-1`, `${name}-2`]);
    assert.deepEqual(await lease(key, "lease=30"), []);
    // A poll without `lease` keeps its cursor but does not return leased items.
    assert.deepEqual((await t.agent(key, "GET", "/v1/agent/inbox")).body, { items: [], nextCursor: 0 });
    clock += 30_000;
    const again = await lease(key, "lease=30");
    assert.deepEqual(ids(again), [`${name}-0`, `${name}-1`, `${name}-2`]);
    assert.equal(again[0].deliveries, 2);
    assert.notEqual(again[0].leaseId, first.leaseId);
    clock += 30_000;
  });

  test("two concurrent leased polls never share an item, round after round", async () => {
    const { key } = await agentWith(120);
    const seen = new Set<number>();
    for (let round = 0; round < 20; round++) {
      const [a, b] = await Promise.all([lease(key, "lease=60&limit=3"), lease(key, "lease=60&limit=3")]);
      for (const item of [...a, ...b]) {
        assert.ok(!seen.has(item.inboxId), `item ${item.inboxId} handed out twice`);
        seen.add(item.inboxId);
      }
    }
    assert.equal(seen.size, 120);
    assert.deepEqual(await lease(key, "lease=60"), []);
    clock += 60_000;
  });

  test("extend moves the lease's end to seconds from now", async () => {
    const { key } = await agentWith(1);
    const [item] = await lease(key, "lease=30");
    clock += 20_000;
    const res = await t.agent(key, "POST", "/v1/agent/leases/extend", {
      body: { leaseIds: [item.leaseId], seconds: 60 },
    });
    assert.equal(res.status, 200);
    const until = new Date(clock + 60_000).toISOString();
    assert.deepEqual(res.body, { ok: true, extended: 1, leases: [{ leaseId: item.leaseId, leaseExpiresAt: until }] });
    clock += 59_000;
    assert.deepEqual(await lease(key, "lease=30"), []);
    clock += 1_000;
    assert.deepEqual((await lease(key, "lease=30")).map((i) => i.inboxId), [item.inboxId]);
    clock += 30_000;
  });

  test("release puts the item back at once, or after its delay", async () => {
    const { key } = await agentWith(2);
    const [a, b] = await lease(key, "lease=300");
    const now = await t.agent(key, "POST", "/v1/agent/leases/release", { body: { leaseIds: [a.leaseId] } });
    assert.deepEqual(now.body, { ok: true, released: 1 });
    const later = await t.agent(key, "POST", "/v1/agent/leases/release", {
      body: { leaseIds: [b.leaseId], delaySeconds: 10 },
    });
    assert.deepEqual(later.body, { ok: true, released: 1 });
    const back = await lease(key, "lease=300");
    assert.deepEqual(back.map((i) => i.inboxId), [a.inboxId]);
    assert.equal(back[0].deliveries, 2);
    clock += 9_999;
    assert.deepEqual(await lease(key, "lease=300"), []);
    assert.deepEqual((await t.agent(key, "GET", "/v1/agent/inbox")).body.items, []);
    clock += 1;
    assert.deepEqual((await lease(key, "lease=300")).map((i) => i.inboxId), [b.inboxId]);
    clock += 300_000;
  });

  test("a release wakes a leased long poll of the same agent", async () => {
    const { key } = await agentWith(1);
    const [item] = await lease(key, "lease=300");
    const waiting = t.agent(key, "GET", "/v1/agent/inbox?lease=300&wait=20");
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    await t.agent(key, "POST", "/v1/agent/leases/release", { body: { leaseIds: [item.leaseId] } });
    const woken = await waiting;
    assert.deepEqual(woken.body.items.map((i: Item) => i.inboxId), [item.inboxId]);
    clock += 300_000;
  });

  test("a leased long poll wakes when a lease of its inbox ends, a time and no timer per item", async () => {
    const { key } = await agentWith(1);
    const [item] = await lease(key, "lease=30");
    const waiting = t.agent(key, "GET", "/v1/agent/inbox?lease=30&wait=20");
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    clock += 30_000;
    const woken = await waiting;
    assert.deepEqual(woken.body.items.map((i: Item) => [i.inboxId, i.deliveries]), [[item.inboxId, 2]]);
    clock += 30_000;
  });

  test("acknowledges by lease id and by inbox id; an acknowledged item is never handed out again", async () => {
    const { key } = await agentWith(3);
    const [a, b, c] = await lease(key, "lease=30");
    const byLease = await t.agent(key, "POST", "/v1/agent/ack", { body: { leaseIds: [a.leaseId] } });
    assert.deepEqual(byLease.body, { ok: true, acknowledged: 1 });
    const byId = await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [b.inboxId] } });
    assert.deepEqual(byId.body, { ok: true, acknowledged: 1 });
    clock += 30_000;
    assert.deepEqual((await lease(key, "lease=30")).map((i) => i.inboxId), [c.inboxId]);
    clock += 30_000;
  });

  test("an item handed out maxDeliveries (5) times without an ack is a dead letter; redrive puts it back", async () => {
    const { key, name } = await agentWith(2);
    for (let n = 1; n <= 5; n++) {
      const items = await lease(key, "lease=10");
      assert.deepEqual(items.map((i) => i.deliveries), [n, n]);
      if (n < 5) clock += 10_000;
      else {
        // The last hand-out of the second item is released with a reason: it is buried at once, with it.
        const released = await t.agent(key, "POST", "/v1/agent/leases/release", {
          body: { leaseIds: [items[1].leaseId], reason: "handler crashed" },
        });
        assert.deepEqual(released.body, { ok: true, released: 1 });
        clock += 10_000;
      }
    }
    assert.deepEqual(await lease(key, "lease=10"), []);
    assert.deepEqual((await t.agent(key, "GET", "/v1/agent/inbox")).body.items, []);
    const dead = await t.sdk("GET", `/v1/agents/${name}/dead-letters`);
    assert.equal(dead.status, 200);
    assert.deepEqual(
      dead.body.items.map((i: Record<string, unknown>) => [i.eventId, i.deliveries, i.reason, i.deadAt]),
      [
        [`${name}-0`, 5, "lease_expired", new Date(clock).toISOString()],
        [`${name}-1`, 5, "handler crashed", new Date(clock - 10_000).toISOString()],
      ],
    );
    const [first] = dead.body.items;
    assert.deepEqual(Object.keys(first).sort(), [
      "deadAt",
      "deliveries",
      "eventId",
      "inboxId",
      "payload",
      "reason",
      "type",
    ]);
    const some = await t.sdk("POST", `/v1/agents/${name}/redrive`, { body: { inboxIds: [first.inboxId] } });
    assert.deepEqual(some.body, { ok: true, redriven: 1 });
    const back = await lease(key, "lease=10");
    assert.deepEqual(back.map((i) => [i.eventId, i.deliveries]), [[`${name}-0`, 1]]);
    const all = await t.sdk("POST", `/v1/agents/${name}/redrive`, { body: {} });
    assert.deepEqual(all.body, { ok: true, redriven: 1 });
    assert.deepEqual((await t.sdk("GET", `/v1/agents/${name}/dead-letters`)).body, { items: [] });
    const audit = await t.client.execute({
      sql: "SELECT detail FROM cloud_audit WHERE action = 'inbox.redrive' AND target = ? ORDER BY id",
      args: [name],
    });
    assert.deepEqual(audit.rows.map((r) => JSON.parse(String(r.detail))), [
      { agentId: name, inboxIds: [first.inboxId] },
      { agentId: name, inboxIds: "all" },
    ]);
    const none = await t.sdk("POST", `/v1/agents/${name}/redrive`, { body: {} });
    assert.deepEqual(none.body, { ok: true, redriven: 0 });
    clock += 10_000;
  });

  test("replay queues acknowledged items of a window again: new inbox ids, same eventId and payload, replayOf", async () => {
    const { key, name } = await agentWith(3);
    const windowStart = new Date(clock).toISOString();
    const items = await lease(key, "lease=30");
    await t.agent(key, "POST", "/v1/agent/ack", { body: { leaseIds: items.slice(0, 2).map((i) => i.leaseId) } });
    clock += 30_000;
    const res = await t.sdk("POST", `/v1/agents/${name}/replay`, { body: { since: windowStart } });
    assert.deepEqual(res.body, { ok: true, replayed: 2 });
    const queued = (await t.agent(key, "GET", "/v1/agent/inbox?limit=10")).body.items;
    assert.deepEqual(
      queued.map((i: Item & { replayOf?: number; payload: unknown }) => [i.eventId, i.replayOf, i.payload]),
      [
        [`${name}-2`, undefined, { n: `${name}-2` }],
        [`${name}-0`, items[0].inboxId, { n: `${name}-0` }],
        [`${name}-1`, items[1].inboxId, { n: `${name}-1` }],
      ],
    );
    assert.ok(queued[1].inboxId > items[2].inboxId);
    // The original eventId is still a duplicate of the original item, and a window with nothing replays nothing.
    const again = await t.sdk("POST", "/v1/events", { body: event(`${name}-0`, name) });
    assert.deepEqual([again.status, again.body.inboxId], [200, items[0].inboxId]);
    const empty = await t.sdk("POST", `/v1/agents/${name}/replay`, {
      body: { since: "2020-01-01T00:00:00Z", until: "2020-01-02T00:00:00Z" },
    });
    assert.deepEqual(empty.body, { ok: true, replayed: 0 });
    const audit = await t.client.execute({
      sql: "SELECT detail FROM cloud_audit WHERE action = 'inbox.replay' AND target = ? ORDER BY id",
      args: [name],
    });
    assert.deepEqual(audit.rows.map((r) => JSON.parse(String(r.detail))), [
      { agentId: name, since: windowStart, until: null },
    ]);
  });

  test("the project's inbox.maxDeliveries sets when an item becomes a dead letter", async () => {
    const p = await t.newProject("two deliveries");
    assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { inbox: { maxDeliveries: 2 } } })).status, 200);
    const { key } = await t.mintKey("capped", {}, p);
    await t.sdk("POST", "/v1/events", { as: p, body: event("capped-1", "capped") });
    assert.equal((await lease(key, "lease=10"))[0].deliveries, 1);
    clock += 10_000;
    assert.equal((await lease(key, "lease=10"))[0].deliveries, 2);
    clock += 10_000;
    assert.deepEqual(await lease(key, "lease=10"), []);
    const dead = await t.sdk("GET", "/v1/agents/capped/dead-letters", { as: p });
    assert.deepEqual(dead.body.items.map((i: { eventId: string; deliveries: number }) => [i.eventId, i.deliveries]), [
      ["capped-1", 2],
    ]);
    // Another project's dead letters are not this one's.
    assert.deepEqual((await t.sdk("GET", "/v1/agents/capped/dead-letters")).body, { items: [] });
    assert.deepEqual((await t.sdk("POST", "/v1/agents/capped/redrive", { body: {} })).body, { ok: true, redriven: 0 });
  });

  test("refuses a lease of 0 or 43,201 seconds and someone else's lease id with the envelope", async () => {
    const { key } = await agentWith(1);
    for (const bad of ["0", "43201", "x"]) {
      const res = await t.agent(key, "GET", `/v1/agent/inbox?lease=${bad}`);
      assert.equal(res.status, 400, bad);
      assert.equal(res.body.ok, false);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.issues[0].path, "lease");
    }
    assert.equal((await lease(key, "lease=43200")).length, 1);
    const other = await agentWith(1);
    const [theirs] = await lease(other.key, "lease=30");
    for (
      const [path, body] of [
        ["/v1/agent/leases/extend", { leaseIds: [theirs.leaseId], seconds: 30 }],
        ["/v1/agent/leases/release", { leaseIds: [theirs.leaseId] }],
        ["/v1/agent/leases/extend", { leaseIds: ["no-such-lease"], seconds: 30 }],
      ] as const
    ) {
      const res = await t.agent(key, "POST", path, { body });
      assert.equal(res.status, 404, path);
      assert.equal(res.body.ok, false);
      assert.equal(res.body.error.code, "NOT_FOUND");
    }
    const ack = await t.agent(key, "POST", "/v1/agent/ack", { body: { leaseIds: [theirs.leaseId] } });
    assert.deepEqual(ack.body, { ok: true, acknowledged: 0 });
    for (
      const [path, body] of [
        ["/v1/agent/leases/extend", { leaseIds: [theirs.leaseId], seconds: 0 }],
        ["/v1/agent/leases/extend", { leaseIds: [theirs.leaseId], seconds: 43_201 }],
        ["/v1/agent/leases/extend", { leaseIds: [], seconds: 30 }],
        ["/v1/agent/leases/release", { leaseIds: [theirs.leaseId], delaySeconds: -1 }],
        ["/v1/agent/ack", { leaseIds: [] }],
      ] as const
    ) {
      const res = await t.agent(key, "POST", path, { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
    // The other agent's lease still holds.
    assert.deepEqual(await lease(other.key, "lease=30"), []);
    clock += 43_200_000;
  });
});

describe("leases on two cloud instances sharing one database file", () => {
  const dir = tempDir("svc-leases-");
  after(() => dir.remove());

  test("concurrent leased polls through both never share an item, and every item is handed out", async () => {
    const url = `file:${dir.file("svc.db")}`;
    const a = await startTestCloud({ url });
    const b = await startTestCloud({ url });
    try {
      const { key, agentId } = await a.mintKey("shared");
      const events = Array.from({ length: 300 }, (_, i) => event(`s-${i}`, agentId));
      await a.sdk("POST", "/v1/events/batch", { body: { events } });
      const seen = new Map<number, number>();
      const worker = async (t: TestCloud) => {
        for (;;) {
          const res = await t.agent(key, "GET", "/v1/agent/inbox?lease=600&limit=7");
          assert.equal(res.status, 200, JSON.stringify(res.body));
          const items: Item[] = res.body.items;
          if (items.length === 0) return;
          for (const item of items) seen.set(item.inboxId, (seen.get(item.inboxId) ?? 0) + 1);
        }
      };
      await Promise.all([worker(a), worker(b), worker(a), worker(b)]);
      assert.equal(seen.size, 300);
      assert.deepEqual([...seen.values()].filter((n) => n > 1), []);
    } finally {
      await b.close();
      await a.close();
    }
  });
});
