// @slow: subprocesses
// Concurrency: two cloud processes on one database file, events emitted
// through both, and several agents long-polling and acknowledging through both
// at once. Every item is delivered, each is acknowledged exactly once (the sum of
// `acknowledged` equals the number of items), and no SQLITE_BUSY or 5xx
// reaches a client.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { tempDir } from "../../fixtures/temp_dir.ts";
import {
  createProjectCli,
  mintKeyVia,
  type Reply,
  request,
  sdkHeaders,
  startCloudProcess,
} from "../../fixtures/cloud_process.ts";

const AGENTS = 4;
const EVENTS_PER_AGENT = 60;
/**
 * The most polls a worker makes: a bound in count, not in time, so a slow machine takes longer but never fails (an
 * empty poll is held at most 1 s; 600 rounds is far more than 60 items need).
 */
const MAX_ROUNDS = 600;

const dir = tempDir("svc-two-");
after(() => dir.remove());

test("two processes on one file deliver every item and acknowledge each exactly once", async () => {
  const db = `file:${dir.file("svc.db")}`;
  const project = await createProjectCli(db);
  const servers = await Promise.all([startCloudProcess(db), startCloudProcess(db)]);
  const urls = servers.map((s) => s.url);
  const failures: string[] = [];
  const watch = (what: string, res: Reply) => {
    if (res.status === 0 || res.status >= 500 || /SQLITE_BUSY|database is locked/i.test(res.text)) {
      failures.push(`${what}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    return res;
  };
  try {
    const keys = await Promise.all(
      Array.from({ length: AGENTS }, (_, a) => mintKeyVia(urls[a % 2], project, `agent${a}`)),
    );
    let emitting = true;

    const emitter = async (a: number) => {
      for (let i = 0; i < EVENTS_PER_AGENT; i++) {
        const body = { eventId: `a${a}-${i}`, type: "race", agentId: `agent${a}`, payload: { i } };
        watch("emit", await request(urls[i % 2], "POST", "/v1/events", sdkHeaders(project), body));
      }
    };
    const acknowledged = new Array(AGENTS).fill(0);
    const delivered = Array.from({ length: AGENTS }, () => new Set<string>());
    const worker = async (a: number, url: string) => {
      const auth = { authorization: `Bearer ${keys[a]}` };
      for (let round = 0; round < MAX_ROUNDS && (emitting || acknowledged[a] < EVENTS_PER_AGENT); round++) {
        // As agents wait: an empty inbox holds the poll until an item arrives (through either process) or 1 s passes.
        const polled = watch("poll", await request(url, "GET", "/v1/agent/inbox?limit=10&wait=1", auth));
        if (polled.status !== 200) continue;
        const items: { inboxId: number; eventId: string }[] = polled.body.items;
        if (items.length === 0) continue;
        for (const item of items) delivered[a].add(item.eventId);
        const ack = watch(
          "ack",
          await request(url, "POST", "/v1/agent/ack", auth, { inboxIds: items.map((i) => i.inboxId) }),
        );
        if (ack.status === 200) acknowledged[a] += ack.body.acknowledged;
      }
    };
    const workers = Array.from({ length: AGENTS }, (_, a) => [worker(a, urls[0]), worker(a, urls[1])]).flat();
    await Promise.all(Array.from({ length: AGENTS }, (_, a) => emitter(a)));
    emitting = false;
    await Promise.all(workers);

    assert.deepEqual(failures, [], "no SQLITE_BUSY, 5xx or dropped connection reached a client");
    for (let a = 0; a < AGENTS; a++) {
      assert.equal(delivered[a].size, EVENTS_PER_AGENT, `agent${a}: every item delivered`);
      assert.equal(acknowledged[a], EVENTS_PER_AGENT, `agent${a}: each item acknowledged exactly once`);
    }
    const client = createClient({ url: db });
    try {
      const open = await client.execute("SELECT COUNT(*) AS n FROM cloud_events WHERE acked_at IS NULL");
      assert.equal(Number(open.rows[0].n), 0);
    } finally {
      client.close();
    }
    console.log(
      `two processes: ${AGENTS * EVENTS_PER_AGENT} items, ${AGENTS * 2} workers, acknowledged ${acknowledged}`,
    );
  } finally {
    for (const s of servers) s.child.kill("SIGTERM");
    await Promise.all(servers.map((s) => s.done));
  }
});
