// Revocation-feed long polls share the cloud's one watcher (idle polls cost
// no statement each) and are capped per project like the inbox's. Before:
// each feed poll re-read the database every re-check interval, uncapped.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { MAX_POLLS_PER_PROJECT } from "../../cloud/inbox/mod.ts";

const POLLS = 50;

describe("revocation-feed long polls", () => {
  let t: TestCloud;
  let statements = 0;
  /** Reads of a project's feed: a poll makes its first after it was admitted. */
  let feedReads = 0;
  before(async () => {
    t = await startTestCloud({ recheckMs: 50 });
    // The cloud's real in-memory libSQL client, its statements counted. recheckMs 50: a two-second poll
    // re-checks about 40 times.
    const client = t.client;
    const execute = client.execute.bind(client);
    const batch = client.batch.bind(client);
    client.execute = ((...args: Parameters<typeof execute>) => {
      statements += 1;
      const statement = args[0] as string | { sql: string };
      const sql = typeof statement === "string" ? statement : statement.sql;
      if (/FROM cloud_revocations\s+WHERE project_id/.test(sql)) feedReads += 1;
      return execute(...args);
    }) as typeof client.execute;
    client.batch = ((...args: Parameters<typeof batch>) => {
      statements += 1;
      return batch(...args);
    }) as typeof client.batch;
  });
  after(() => t.close());

  test(`${POLLS} idle feed polls of two seconds cost a few statements a re-check, not one each`, async () => {
    const before = statements;
    const answers = await Promise.all(
      Array.from({ length: POLLS }, () => t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=2")),
    );
    const spent = statements - before;
    for (const answer of answers) assert.equal(answer.status, 200);
    console.log(`${POLLS} idle feed polls of 2 s: ${spent} statements`);
    // Each poll is authenticated, reads at its start, once more at the watcher's first look and at its end, and
    // re-checks its secret: about 6 statements each, whatever the wait; the watcher adds three per re-check (120).
    // Before, each poll also re-read every re-check: about 31 statements per poll (1,550).
    assert.ok(spent < POLLS * 10, `${spent} statements`);
  });

  test("a revocation still reaches a waiting feed poll at once", async () => {
    const key = await t.mintKey("u-feed");
    const waiting = t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=20");
    await t.sdk("DELETE", `/v1/sdk/keys/${key.id}`);
    const answer = await waiting;
    assert.equal(answer.status, 200);
    assert.ok(answer.body.revocations.some((r: { keyId: string }) => r.keyId === key.id));
  });

  test("feed polls are capped per project: past the cap, 429 with Retry-After", async () => {
    const project = await t.newProject("capped");
    const controller = new AbortController();
    const reads = feedReads;
    const polls = Array.from(
      { length: MAX_POLLS_PER_PROJECT },
      () => t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=20", { as: project, signal: controller.signal }),
    );
    // Every poll has read the feed once, so every one is waiting.
    while (feedReads - reads < MAX_POLLS_PER_PROJECT) await new Promise((resolve) => setImmediate(resolve));
    const over = await t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=20", { as: project });
    controller.abort();
    await Promise.allSettled(polls);
    assert.equal(over.status, 429);
    assert.ok(Number(over.headers.get("retry-after")) >= 1);
  });
});
