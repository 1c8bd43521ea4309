// @slow: subprocesses (a cloud process beside the one in the test)
// Long polls: one shared watcher per node (no statement while idle), wake-ups across processes through
// data_version (a poll held here, an event stored by a `serve` process), and the caps on concurrent polls
// per key and per project.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createInboxWaiters, MAX_POLLS_PER_KEY, type WatchedStorage } from "../../../cloud/feed/mod.ts";
import { openCloudStorage } from "../../../cloud/open_cloud_storage.ts";
import { createProject } from "../../../cloud/projects/projects.ts";
import { event, startTestCloud } from "../../fixtures/test_cloud.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { mintKeyVia, request, sdkHeaders, startCloudProcess } from "../../fixtures/cloud_process.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { isSvcError } from "../../../core/errors/mod.ts";
import { waitingPolls } from "../../../cloud/create_cloud.ts";
import { settlesWithin, waitFor } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-waiters-");
after(() => dir.remove());

describe("createInboxWaiters", () => {
  test("admit() refuses a key's poll beyond its cap with 429 RATE_LIMITED and Retry-After, until one ends", () => {
    const waiters = createInboxWaiters({ maxPollsPerKey: 2, maxPollsPerProject: 3 });
    const first = waiters.admit("p", "k1");
    waiters.admit("p", "k1");
    assert.throws(() => waiters.admit("p", "k1"), (error: unknown) => {
      assert.ok(isSvcError(error));
      assert.equal(error.code, "RATE_LIMITED");
      assert.equal(error.status, 429);
      assert.equal(error.headers?.["retry-after"], "1");
      return true;
    });
    first();
    first();
    waiters.admit("p", "k1");
    waiters.admit("p", "k2");
    assert.throws(() => waiters.admit("p", "k3"), /Too many requests/, "the project's cap counts every key");
    assert.throws(() => waiters.admit("p", null), /Too many requests/, "and SDK tooling polls");
    waiters.admit("other", null);
    waiters.close();
  });

  test("admit() counts a key's polls per project: another project's key with the same id has its own cap", () => {
    const waiters = createInboxWaiters({ maxPollsPerKey: 1, maxPollsPerProject: 5 });
    waiters.admit("p", "k1");
    assert.throws(() => waiters.admit("p", "k1"), /Too many requests/);
    waiters.admit("other", "k1");
    waiters.close();
  });

  test("idle polls cost no statement: the watcher reads only after another connection commits", async () => {
    const url = `file:${dir.file("idle.db")}`;
    const [storage, other] = [await openCloudStorage(url), await openCloudStorage(url)];
    const { project } = await createProject(storage, "Idle");
    let reads = 0;
    let looks = 0;
    const watched: WatchedStorage = {
      dataVersion: () => (looks++, storage.inbox.dataVersion()),
      inboxesFilledAfter: (id) => (reads++, storage.inbox.inboxesFilledAfter(id)),
    };
    const waiters = createInboxWaiters();
    try {
      const subscriptions = Array.from({ length: 50 }, (_, i) => waiters.subscribe(project.id, `agent${i}`));
      waiters.watch(watched, 3_600_000);
      await waitFor("twenty looks at data_version", () => looks >= 20);
      assert.equal(reads, 1, "one first look, then nothing while nobody commits");
      // The first look woke every poll once (to re-read); a poll that subscribes again waits.
      subscriptions[7].cancel();
      subscriptions[7] = waiters.subscribe(project.id, "agent7");
      const woken = subscriptions[7].wait(30_000);
      await other.inbox.appendEvents(project.id, [{ eventId: "e1", type: "t", agentId: "agent7", payload: {} }], "now");
      await woken;
      assert.equal(reads, 2, "one read for all 50 polls");
      for (const s of subscriptions) s.cancel();
    } finally {
      waiters.close();
      await storage.close();
      await other.close();
    }
  });

  test("a cloud refuses the poll of a key beyond its cap with 429 while the others wait", async () => {
    const t = await startTestCloud({ recheckMs: 3_600_000 });
    try {
      const { key } = await t.mintKey("capped");
      const controller = new AbortController();
      const waiting = Array.from(
        { length: MAX_POLLS_PER_KEY },
        () => t.agent(key, "GET", "/v1/agent/inbox?wait=20", { signal: controller.signal }),
      );
      await waitFor(`${MAX_POLLS_PER_KEY} polls held`, () => waitingPolls(t.cloud) === MAX_POLLS_PER_KEY);
      const refused = await t.agent(key, "GET", "/v1/agent/inbox?wait=20");
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, "RATE_LIMITED");
      assert.equal(refused.headers.get("retry-after"), "1");
      assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200, "a poll without wait is not capped");
      await t.sdk("POST", "/v1/events", { body: event("wake", "capped") });
      const answers = await Promise.all(waiting);
      assert.ok(answers.every((a) => a.status === 200));
      assert.equal((await t.agent(key, "GET", "/v1/agent/inbox?wait=0.01")).status, 200, "places are released");
    } finally {
      await t.close();
    }
  });
});

describe("long polls across two cloud processes on one file", () => {
  test("an event stored by a serve process reaches a poll waiting in another process (this one)", async () => {
    const db = `file:${dir.file("two.db")}`;
    // The poll waits in this process's cloud, where it can be seen held; the event goes through a `serve` process.
    const here = await startCloudServer(db);
    const other = await startCloudProcess(db);
    try {
      const project = { projectId: here.projectId, sdkSecret: here.sdkSecret };
      const key = await mintKeyVia(other.url, project, "crossing");
      const polling = fetch(`${here.url}/v1/agent/inbox?wait=20`, { headers: { authorization: `Bearer ${key}` } })
        .then((res) => res.json());
      await waitFor("the poll to be held", () => here.heldPolls() === 1);
      const emitted = await request(other.url, "POST", "/v1/events", sdkHeaders(project), event("across", "crossing"));
      assert.equal(emitted.status, 202, emitted.text);
      // Woken by the watcher, the poll answers within milliseconds; not woken, it would find the event only on
      // its last read, when its 20 s wait ends.
      const polled = await settlesWithin(polling, 10_000, "the poll, woken by the other process's event");
      assert.deepEqual(polled.items.map((i: { eventId: string }) => i.eventId), ["across"]);
    } finally {
      other.child.kill("SIGTERM");
      await other.done;
      await here.stop();
    }
  });
});
