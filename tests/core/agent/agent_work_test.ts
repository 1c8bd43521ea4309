// AgentClient.work(): the inbox as a queue, end to end against an in-process test cloud (real libSQL, its clock
// injected): leased polls, concurrent handlers, ack on success, release with a delay on a throw, extension of a
// long handler's lease, and a stop by signal.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { AgentClient } from "../../../core/agent/mod.ts";
import type { InboxItem } from "../../../core/contract/mod.ts";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

describe("AgentClient.work", () => {
  let t: TestCloud;
  let clock = Date.parse("2026-03-01T12:00:00.000Z");
  const calls: string[] = [];
  before(async () => {
    t = await startTestCloud({ now: () => clock });
  });
  after(() => t.close());

  const worker = async (n: number) => {
    const name = `w-${crypto.randomUUID().slice(0, 8)}`;
    const { key } = await t.mintKey(name);
    const events = Array.from({ length: n }, (_, i) => event(`${name}-${i}`, name));
    if (n > 0) await t.sdk("POST", "/v1/events/batch", { body: { events } });
    const fetch = (req: Request) => {
      calls.push(`${req.method} ${new URL(req.url).pathname}`);
      return t.cloud.handle(req);
    };
    return { agent: new AgentClient({ key, cloudUrl: "http://cloud.test", fetch }), key, name };
  };
  /** The eventIds of an inbox that a poll could get now, read without counting a delivery. */
  const free = async (agentId: string) =>
    (await t.client.execute({
      sql: `SELECT event_id FROM cloud_events WHERE agent_id = ? AND acked_at IS NULL AND dead_at IS NULL
            AND (lease_expires_at IS NULL OR lease_expires_at <= ?) ORDER BY inbox_id`,
      args: [agentId, new Date(clock).toISOString()],
    })).rows.map((r) => String(r.event_id));
  /** The eventIds of an inbox not acknowledged, leased or not. */
  const unacknowledged = async (agentId: string) =>
    (await t.client.execute({
      sql: "SELECT event_id FROM cloud_events WHERE agent_id = ? AND acked_at IS NULL",
      args: [agentId],
    })).rows.length;

  test("runs up to `concurrency` handlers at once and acknowledges each item its handler returned", async () => {
    const { agent, name } = await worker(20);
    let running = 0;
    let most = 0;
    const handled: string[] = [];
    const summary = await agent.work({
      concurrency: 4,
      leaseSeconds: 60,
      untilEmpty: true,
      handler: async (item) => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        handled.push(item.eventId);
        running--;
      },
    });
    assert.deepEqual(summary, { acknowledged: 20, released: 0 });
    assert.equal(most, 4);
    assert.deepEqual(handled.sort(), Array.from({ length: 20 }, (_, i) => `${name}-${i}`).sort());
    assert.equal(await unacknowledged(name), 0);
  });

  test("a throw releases the item with a delay; it is handed out again after it, and then acknowledged", async () => {
    const { agent, name } = await worker(2);
    const seen: [string, number][] = [];
    const handler = (item: InboxItem) => {
      seen.push([item.eventId, item.deliveries]);
      if (item.eventId === `${name}-0` && item.deliveries === 1) throw new Error("flaky\nupstream");
    };
    const first = await agent.work({ leaseSeconds: 60, untilEmpty: true, handler });
    assert.deepEqual(first, { acknowledged: 1, released: 1 });
    // Released with the default delay after a first delivery: 1 s, by the cloud's clock.
    assert.deepEqual(await free(name), []);
    clock += 1_000;
    assert.deepEqual(await free(name), [`${name}-0`]);
    const second = await agent.work({ leaseSeconds: 60, untilEmpty: true, handler });
    assert.deepEqual(second, { acknowledged: 1, released: 0 });
    assert.deepEqual(seen, [[`${name}-0`, 1], [`${name}-1`, 1], [`${name}-0`, 2]]);
    assert.equal(await unacknowledged(name), 0);
  });

  test("a handler that runs long extends its lease, and another worker does not get the item meanwhile", async () => {
    const { agent, key } = await worker(1);
    const other = new AgentClient({ key, cloudUrl: "http://cloud.test", fetch: (req) => t.cloud.handle(req) });
    const before = calls.filter((c) => c.endsWith("/leases/extend")).length;
    const summary = await agent.work({
      leaseSeconds: 1,
      untilEmpty: true,
      handler: async () => {
        await waitFor(
          "the lease to be extended",
          () => calls.filter((c) => c.endsWith("/leases/extend")).length > before,
        );
        assert.deepEqual((await other.poll({ lease: 30 })).items, []);
      },
    });
    assert.deepEqual(summary, { acknowledged: 1, released: 0 });
  });

  test("stops polling when its signal aborts; the handler running finishes and is acknowledged", async () => {
    const { agent, name } = await worker(5);
    const stop = new AbortController();
    const summary = await agent.work({
      leaseSeconds: 60,
      signal: stop.signal,
      handler: () => stop.abort(),
    });
    assert.deepEqual(summary, { acknowledged: 1, released: 0 });
    assert.equal(await unacknowledged(name), 4);
  });

  test("refuses a lease or a concurrency out of bounds, and ends on a refused key", async () => {
    const { agent } = await worker(0);
    const handler = () => {};
    for (const options of [{ leaseSeconds: 0 }, { leaseSeconds: 43_201 }, { concurrency: 0 }]) {
      await assert.rejects(agent.work({ ...options, handler }), { code: "VALIDATION_ERROR" });
    }
    const stranger = new AgentClient({
      key: `svc_live_${"q".repeat(40)}`,
      cloudUrl: "http://cloud.test",
      fetch: (req) => t.cloud.handle(req),
    });
    await assert.rejects(stranger.work({ handler }), { code: "UNAUTHORIZED" });
  });
});
