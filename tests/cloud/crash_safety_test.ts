// @slow: subprocesses
// Crash safety: the cloud runs as a process, takes events and acknowledgements
// concurrently, and is killed with SIGKILL mid-stream. After a restart every
// event that got a 2xx is stored exactly once, every acknowledged item stays
// acknowledged, and the database passes PRAGMA integrity_check.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { tempDir } from "../fixtures/temp_dir.ts";
import { createProjectCli, mintKeyVia, request, sdkHeaders, startCloudProcess } from "../fixtures/cloud_process.ts";

const SENDERS = 4;
const KILL_AFTER = 150; // confirmed events before the kill
const MAX_PER_SENDER = 400;

/** Figures for the report, printed once. */
export const figures = { confirmed: 0, uncertain: 0, acked: 0, foundAfterRestart: 0 };

const dir = tempDir("svc-crash-");
after(() => dir.remove());

test("a SIGKILL mid-stream loses no confirmed event or acknowledgement and leaves the database intact", async () => {
  const db = `file:${dir.file("svc.db")}`;
  const project = await createProjectCli(db);
  const first = await startCloudProcess(db);
  const agent = { authorization: `Bearer ${await mintKeyVia(first.url, project, "bot")}` };

  const confirmed = new Set<string>();
  const uncertain = new Set<string>();
  const acked = new Set<number>();
  let killed = false;

  const sender = async (s: number) => {
    for (let i = 0; i < MAX_PER_SENDER && !killed; i++) {
      const eventId = `e${s}-${i}`;
      const res = await request(first.url, "POST", "/v1/events", sdkHeaders(project), {
        eventId,
        type: "crash.test",
        agentId: "bot",
        payload: { s, i },
      });
      assert.ok(res.status === 0 || res.status < 500, `${res.status} ${res.text}`);
      if (res.status === 202 || res.status === 200) confirmed.add(eventId);
      else uncertain.add(eventId);
      if (res.status === 0) return;
      // Killed once there are confirmed events and acknowledgements to check, not over an empty set.
      if (confirmed.size >= KILL_AFTER && acked.size > 0 && !killed) {
        killed = true;
        first.child.kill("SIGKILL");
      }
    }
  };
  const acker = async () => {
    for (let round = 0; round < 2000 && !killed; round++) {
      const polled = await request(first.url, "GET", "/v1/agent/inbox?limit=20", agent);
      if (polled.status !== 200) return;
      const ids = polled.body.items.map((i: { inboxId: number }) => i.inboxId);
      if (ids.length === 0) continue;
      const res = await request(first.url, "POST", "/v1/agent/ack", agent, { inboxIds: ids });
      if (res.status === 200) { for (const id of ids) acked.add(id); }
    }
  };
  await Promise.all([...Array.from({ length: SENDERS }, (_, s) => sender(s)), acker()]);
  assert.ok(killed, "the kill happened mid-stream");
  assert.ok(confirmed.size >= KILL_AFTER, `${confirmed.size} events confirmed before the kill`);
  assert.ok(acked.size > 0, "items were acknowledged before the kill");
  await first.done;

  const second = await startCloudProcess(db);
  try {
    const client = createClient({ url: db });
    try {
      const integrity = await client.execute("PRAGMA integrity_check");
      assert.equal(integrity.rows[0][0], "ok");
      const rows = await client.execute({
        sql: "SELECT event_id, COUNT(*) AS n FROM cloud_events WHERE project_id = ? GROUP BY event_id",
        args: [project.projectId],
      });
      const stored = new Map(rows.rows.map((r) => [String(r.event_id), Number(r.n)]));
      for (const eventId of confirmed) assert.equal(stored.get(eventId), 1, `${eventId} stored exactly once`);
      const open = await client.execute("SELECT inbox_id FROM cloud_events WHERE acked_at IS NULL");
      const waiting = new Set(open.rows.map((r) => Number(r.inbox_id)));
      for (const id of acked) assert.ok(!waiting.has(id), `item ${id} stays acknowledged`);
      figures.foundAfterRestart = [...confirmed].filter((e) => stored.get(e) === 1).length;
    } finally {
      client.close();
    }
    // Sending everything again after the restart: the confirmed ones are duplicates, nothing is stored twice.
    for (const eventId of [...confirmed, ...uncertain]) {
      const res = await request(second.url, "POST", "/v1/events", sdkHeaders(project), {
        eventId,
        type: "crash.test",
        agentId: "bot",
        payload: {},
      });
      assert.ok(res.status === 200 || res.status === 202, `${res.status} ${res.text}`);
      if (confirmed.has(eventId)) assert.equal(res.body.duplicate, true, eventId);
    }
    const inbox = await request(second.url, "GET", "/v1/agent/inbox?limit=200", agent);
    for (const item of inbox.body.items) assert.ok(!acked.has(item.inboxId), "no acknowledged item is redelivered");
  } finally {
    second.child.kill("SIGTERM");
    await second.done;
  }
  Object.assign(figures, { confirmed: confirmed.size, uncertain: uncertain.size, acked: acked.size });
  console.log(`crash safety: ${JSON.stringify(figures)}`);
});
