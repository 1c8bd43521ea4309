// @slow: two `serve` subprocesses beside a cloud in this process, all three on one database file
// Three cloud nodes on one file (WAL): node A and node B are `cloud/main.ts serve` processes, node C is a cloud served
// by this process (where a held poll can be seen). A revoke at node A reaches a hybrid app following node B; an event
// posted at node A wakes an agent long-polling node C; events posted through the three nodes at once are each stored
// once, and every event a node acknowledged is stored. Observed by state (a 401 at the app, the poll's answer, rows),
// never by time.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { type Svc, withSvc } from "../../../mod.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { notesSvc } from "../../fixtures/notes_svc.ts";
import { listen, mintOverHttp, refusedSoon, startCloudServer } from "../../fixtures/servers.ts";
import { type CloudProcess, mintKeyVia, request, sdkHeaders, startCloudProcess } from "../../fixtures/cloud_process.ts";
import { event } from "../../fixtures/test_cloud.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { settlesWithin, waitFor } from "../../fixtures/wait_for.ts";

const dir = tempDir("svc-three-nodes-");
after(() => dir.remove());

test("three nodes on one file: a revoke at A is refused at an app following B, an event posted at A reaches a poll at C, and events posted through all three are each stored once", async () => {
  const db = `file:${dir.file("cloud.db")}`;
  const nodeC = await startCloudServer(db);
  const project = { projectId: nodeC.projectId, sdkSecret: nodeC.sdkSecret };
  const [nodeA, nodeB]: CloudProcess[] = await Promise.all([startCloudProcess(db), startCloudProcess(db)]);
  let svc: Svc | undefined;
  let app: RunningServer | undefined;
  try {
    // A hybrid app following node B; its key revoked at node A.
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: { ...nodeC.appConfig(), endpoint: nodeB.url },
    });
    await svc.ready;
    app = await listen(withSvc(svc));
    const minted = await mintOverHttp(app.url, "alice", ["notes:read"]);
    assert.equal(await svc.sync(), 0, "the key reached the cloud through node B");
    await waitFor("the app's feed at node B", async () => (await svc!.health()).revocationFeed?.connected || undefined);
    const revoked = await request(nodeA.url, "DELETE", `/v1/sdk/keys/${minted.id}`, sdkHeaders(project));
    assert.equal(revoked.status, 200, revoked.text);
    await refusedSoon(app.url, minted.key);

    // An agent long-polling node C; the event posted at node A.
    const key = await mintKeyVia(nodeA.url, project, "runner");
    const polling = fetch(`${nodeC.url}/v1/agent/inbox?wait=20`, { headers: { authorization: `Bearer ${key}` } })
      .then((res) => res.json());
    await waitFor("the poll to be held at node C", () => nodeC.heldPolls() === 1);
    const posted = await request(nodeA.url, "POST", "/v1/events", sdkHeaders(project), event("across", "runner"));
    assert.equal(posted.status, 202, posted.text);
    // Woken by node C's watcher, the poll answers at once; not woken, only when its 20 s wait ends.
    const polled = await settlesWithin(polling, 10_000, "the poll at node C, woken by node A's event");
    assert.deepEqual(polled.items.map((i: { eventId: string }) => i.eventId), ["across"]);

    // Events posted through the three nodes at once, each eventId twice (through two different
    // nodes): one answer 202 stored, the other 200 duplicate, and one row.
    const urls = [nodeA.url, nodeB.url, nodeC.url];
    const ids = Array.from({ length: 60 }, (_, i) => `burst-${i}`);
    const answers = await Promise.all(
      ids.flatMap((id, i) =>
        [0, 1].map((copy) =>
          request(urls[(i + copy) % 3], "POST", "/v1/events", sdkHeaders(project), event(id, `agent-${i % 4}`))
        )
      ),
    );
    for (const [i, id] of ids.entries()) {
      const [one, other] = answers.slice(2 * i, 2 * i + 2);
      assert.deepEqual([one.status, other.status].sort(), [200, 202], `${id}: ${one.text} ${other.text}`);
      assert.deepEqual([one.body.duplicate, other.body.duplicate].sort(), [false, true], "one stored, one duplicate");
      assert.equal(one.body.inboxId, other.body.inboxId, "both answers name the one stored row");
    }
    const client = createClient({ url: db });
    try {
      const stored = await client.execute(
        "SELECT event_id, COUNT(*) AS n FROM cloud_events WHERE event_id LIKE 'burst-%' GROUP BY event_id",
      );
      assert.equal(stored.rows.length, ids.length, "every acknowledged event is stored");
      assert.ok(stored.rows.every((row) => Number(row.n) === 1), "each once");
    } finally {
      client.close();
    }
  } finally {
    await app?.close();
    await svc?.close();
    for (const node of [nodeA, nodeB]) node.child.kill("SIGTERM");
    await Promise.all([nodeA.done, nodeB.done]);
    await nodeC.stop();
  }
});
