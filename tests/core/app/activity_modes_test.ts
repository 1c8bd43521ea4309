// @slow: a cloud on a socket, behind a recording front on another
// What agents did, at hybrid and cloud-mode apps: records go through the outbox to `POST /v1/sdk/activity/batch`
// (the contract's body, each id minted at the app), a hybrid app also keeps its own for `GET /svc/activity`, and a
// cloud-mode app reads the cloud's `GET /v1/sdk/activity` for the signed-in user. The apps talk to a real cloud on a
// socket through a front on another socket that answers the activity routes itself and records what it receives
// (every other request goes on to the cloud).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asUser, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { type CloudServer, listen, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { activityBatchSchema, type ActivityRecord } from "../../../core/contract/mod.ts";
import type { RunningServer } from "../../../core/http/mod.ts";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");

/** A front of the cloud: the activity routes answered here from what it received, the rest sent on. */
interface Front {
  url: string;
  /** Each batch received, as posted. */
  batches: ActivityRecord[][];
  /** The query of each `GET /v1/sdk/activity`. */
  reads: URLSearchParams[];
  close(): Promise<void>;
}

async function startFront(cloud: CloudServer): Promise<Front> {
  const front: Omit<Front, "url" | "close"> = { batches: [], reads: [] };
  const server: RunningServer = await listen(async (req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/v1/sdk/activity/batch") {
      const parsed = activityBatchSchema.safeParse(await req.json());
      if (!parsed.success) {
        return Response.json({ ok: false, error: { code: "VALIDATION_ERROR", message: "bad batch" } }, {
          status: 400,
        });
      }
      front.batches.push(parsed.data.activity);
      return Response.json({ ok: true });
    }
    if (req.method === "GET" && url.pathname === "/v1/sdk/activity") {
      front.reads.push(url.searchParams);
      const userId = url.searchParams.get("userId");
      const activity = front.batches.flat().filter((r) => r.userId === userId).reverse();
      return Response.json({ activity, nextCursor: null });
    }
    const headers = new Headers(req.headers);
    for (const name of ["host", "content-length", "connection"]) headers.delete(name);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    const init = { method: req.method, headers, body, signal: req.signal };
    const answer = await fetch(cloud.url + url.pathname + url.search, init);
    return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
  });
  return { ...front, url: `http://127.0.0.1:${server.port}`, close: () => server.close() };
}

/** Runs one intent of each outcome with a key of alice's (notes:write); the intents in the order run. */
async function runEachOutcome(svc: Svc, key: string): Promise<string[]> {
  assert.equal((await run(svc, key, "notes.create", { title: "secret title" })).status, 200);
  assert.equal((await run(svc, key, "notes.list")).status, 403);
  assert.equal((await run(svc, key, "notes.create", { title: 42 })).status, 400);
  assert.equal((await run(svc, key, "notes.broken")).status, 500);
  return ["notes.create", "notes.list", "notes.create", "notes.broken"];
}

const OUTCOMES = [["ok", 200], ["refused", 403], ["invalid", 400], ["failed", 500]];

for (const mode of ["hybrid", "cloud"] as const) {
  describe(`activity at a ${mode}-mode app`, () => {
    const dir = tempDir(`svc-activity-${mode}-`);
    let cloud: CloudServer;
    let front: Front;
    let svc: Svc;
    let at = T0;

    before(async () => {
      cloud = await startCloudServer(`file:${dir.file("cloud.db")}`, { now: () => at });
      front = await startFront(cloud);
      const config = { ...cloud.appConfig({ maxRevocationLagMs: false }), endpoint: front.url };
      svc = notesSvc({ mode, storage: `file:${dir.file("app.db")}`, cloud: config }, () => at++);
      await svc.ready;
    });
    after(async () => {
      await svc.close();
      await front.close();
      await cloud.stop();
      dir.remove();
    });

    test("each outcome reaches the cloud once, in the contract's batch, with the record's fields", async () => {
      const { key, id } = await mint(svc, "alice", ["notes:write"]);
      const intents = await runEachOutcome(svc, key);
      assert.equal(await svc.sync(), 0, "nothing waits in the outbox");
      const sent = front.batches.flat();
      assert.deepEqual(sent.map((r) => r.intent), intents);
      assert.deepEqual(sent.map((r) => [r.outcome, r.status]), OUTCOMES);
      assert.equal(new Set(sent.map((r) => r.id)).size, sent.length, "each id once");
      for (const record of sent) {
        assert.equal(record.keyId, id);
        assert.equal(record.userId, "alice");
        assert.equal(record.via, "http");
      }
      assert.ok(!JSON.stringify(sent).includes("secret title"), "never the payload");
      assert.equal((await svc.health()).outboxSetAside.count, 0);
    });

    test("GET /svc/activity lists the user's records, from the app's storage or the cloud's", async () => {
      const res = await asUser(svc, "alice", "GET", "/svc/activity?limit=10");
      assert.equal(res.status, 200);
      const { activity, nextCursor } = await res.json();
      assert.equal(nextCursor, null);
      assert.deepEqual(
        activity.map((r: ActivityRecord) => r.id),
        front.batches.flat().map((r) => r.id).reverse(),
        "the same records, newest first",
      );
      if (mode === "cloud") {
        const read = front.reads.at(-1)!;
        assert.deepEqual([read.get("userId"), read.get("limit")], ["alice", "10"], "read at the cloud for alice");
      } else {
        assert.equal(front.reads.length, 0, "a hybrid app reads its own records");
      }
      const bob = await (await asUser(svc, "bob", "GET", "/svc/activity")).json();
      assert.deepEqual(bob, { activity: [], nextCursor: null }, "another user sees nothing");
    });
  });
}
