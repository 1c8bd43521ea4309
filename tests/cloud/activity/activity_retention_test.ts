import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud } from "../../fixtures/test_cloud.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { activityRecord } from "../../fixtures/activity_records.ts";

const DAY = 24 * 60 * 60 * 1000;

test("the purge drops records older than the project's retention (30 days without one), off the request path", async () => {
  let now = Date.parse("2026-11-20T12:00:00.000Z");
  const t = await startTestCloud({ now: () => now, purgeIntervalMs: 20 });
  try {
    const short = await t.newProject("Short retention");
    const policy = await t.sdk("PUT", "/v1/sdk/policy", { body: { retentionDays: 5 }, as: short });
    assert.equal(policy.status, 200, JSON.stringify(policy.body));
    const ages = [40, 20, 10, 1]; // days before the clock moves on
    const batch = ages.map((days) => activityRecord(now - days * DAY, { keyId: "key_a" }));
    for (const as of [t.project, short]) {
      assert.equal((await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: batch }, as })).status, 200);
    }
    const kept = async (as = t.project) =>
      (await t.sdk("GET", "/v1/sdk/activity?keyId=key_a", { as })).body.activity.map((r: { at: string }) => r.at);
    now += 1; // the next pass runs with the clock as it is then
    await waitFor("the 40-day-old record to be purged", async () => (await kept()).length === 3);
    assert.deepEqual(await kept(), batch.slice(1).reverse().map((r) => r.at));
    await waitFor("the 5-day project to keep its last day only", async () => (await kept(short)).length === 1);
    now += 15 * DAY; // 25 days and 35 days old: the 20-day record (now 35) goes, the 10-day record (now 25) stays
    await waitFor("the default retention to move with the clock", async () => (await kept()).length === 2);
    const { rows } = await t.client.execute({
      sql: "SELECT COUNT(*) AS n FROM cloud_activity_hours WHERE project_id = ? AND hour < ?",
      args: [t.project.id, new Date(now - 30 * DAY).toISOString().slice(0, 13)],
    });
    assert.equal(Number(rows[0].n), 0, "the chart's hours go with their records");
  } finally {
    await t.close();
  }
});
