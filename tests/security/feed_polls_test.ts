// Revocation-feed long polls share the cloud's one watcher (idle polls cost
// no statement each) and are capped per project like the inbox's. Before:
// each feed poll re-read the database every re-check interval, uncapped.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { assertFeedPollsCapped, type CountedStatements, countStatements } from "../fixtures/feed_polls.ts";

const POLLS = 50;
/** Concurrent polls per project in this file's cloud. */
const CAP = 100;

describe("revocation-feed long polls", () => {
  let t: TestCloud;
  let counted: CountedStatements;
  before(async () => {
    // The per-project cap lowered through the cloud's test seam: the same check with fewer polls
    // (feed_polls_at_scale_test.ts fills production's 5,000).
    t = await startTestCloud({ recheckMs: 50, polls: { maxPollsPerProject: CAP } });
    // The cloud's real in-memory libSQL client, its statements counted. recheckMs 50: a two-second poll
    // re-checks about 40 times.
    counted = countStatements(t.client);
  });
  after(() => t.close());

  test(`${POLLS} idle feed polls of two seconds cost a few statements a re-check, not one each`, async () => {
    const before = counted.statements();
    const answers = await Promise.all(
      Array.from({ length: POLLS }, () => t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=2")),
    );
    const spent = counted.statements() - before;
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
    await assertFeedPollsCapped(t, counted, CAP);
  });
});
