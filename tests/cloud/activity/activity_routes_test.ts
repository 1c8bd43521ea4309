import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { activityRecord, activityRecords } from "../../fixtures/activity_records.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");

/** Every page of a list, following nextCursor. */
async function allPages(t: TestCloud, query: string, limit = 7): Promise<ActivityRecord[]> {
  const out: ActivityRecord[] = [];
  let cursor: string | null = null;
  do {
    const c: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
    const res = await t.sdk("GET", `/v1/sdk/activity?limit=${limit}${query}${c}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...res.body.activity);
    cursor = res.body.nextCursor;
  } while (cursor !== null);
  return out;
}

describe("POST /v1/sdk/activity/batch", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud({ now: () => NOW }));
  after(() => t.close());

  test("stores a batch and a retry after a lost answer stores each id once", async () => {
    const first = activityRecords(5, NOW - 60_000, () => ({ keyId: "key_retry" }));
    const res = await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: first } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true, ids: first.map((r) => r.id), duplicates: first.map(() => false) });
    // The answer was lost: the outbox sends the same records again, with newer ones behind them.
    const more = activityRecords(2, NOW - 1000, () => ({ keyId: "key_retry" }));
    const retry = await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: [...first, ...more] } });
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body.duplicates, [true, true, true, true, true, false, false]);
    const listed = await allPages(t, "&keyId=key_retry");
    assert.equal(listed.length, 7);
    assert.deepEqual(new Set(listed.map((r) => r.id)).size, 7);
    const { rows } = await t.client.execute("SELECT runs FROM cloud_activity_hours WHERE key_id = 'key_retry'");
    assert.equal(Number(rows[0].runs), 7, "a repeat is not counted in the chart either");
  });

  test("answers a record as it was sent, optional fields included", async () => {
    const r = activityRecord(NOW - 5000, {
      keyId: "key_full",
      agentId: "bot",
      via: "mcp",
      outcome: "refused",
      status: 403,
      code: "FORBIDDEN_SCOPE",
      client: "Claude",
      approvalId: "apr_1",
    });
    assert.equal((await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: [r] } })).status, 200);
    const res = await t.sdk("GET", "/v1/sdk/activity?keyId=key_full");
    assert.deepEqual(res.body, { activity: [r], nextCursor: null });
  });

  test("refuses a record that is not one: a bad id, a payload field, more than 500", async () => {
    const bad = [
      { activity: [{ ...activityRecord(NOW), id: "act_nope" }] },
      { activity: [{ ...activityRecord(NOW), outcome: "maybe" }] },
      { activity: [{ ...activityRecord(NOW), payload: { secret: 1 } }] },
      { activity: [] },
      { activity: activityRecords(501, NOW) },
    ];
    for (const body of bad) {
      const res = await t.sdk("POST", "/v1/sdk/activity/batch", { body });
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });
});

describe("GET /v1/sdk/activity", () => {
  let t: TestCloud;
  const records = activityRecords(40, NOW, (i) => ({
    keyId: `key_${i % 2}`,
    userId: i % 4 < 2 ? "alice" : "bob",
    intent: i % 5 === 0 ? "notes.delete" : "notes.list",
    outcome: i % 3 === 0 ? "refused" : "ok",
    status: i % 3 === 0 ? 403 : 200,
  }));
  before(async () => {
    t = await startTestCloud({ now: () => NOW });
    await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: records } });
  });
  after(() => t.close());

  test("pages newest first by cursor, every record once", async () => {
    const listed = await allPages(t, "");
    assert.deepEqual(listed.map((r) => r.id), records.map((r) => r.id).reverse());
  });

  test("a page stays where it was while newer records arrive", async () => {
    const first = await t.sdk("GET", "/v1/sdk/activity?limit=10");
    const newer = activityRecords(3, NOW + 60_000, () => ({ keyId: "key_new" }));
    await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: newer } });
    const second = await t.sdk("GET", `/v1/sdk/activity?limit=10&cursor=${first.body.nextCursor}`);
    assert.deepEqual(
      second.body.activity.map((r: ActivityRecord) => r.id),
      records.slice(20, 30).map((r) => r.id).reverse(),
    );
  });

  test("filters by key, user, intent, outcome and time, alone and together", async () => {
    const expect = (f: (r: ActivityRecord) => boolean) => records.filter(f).map((r) => r.id).reverse();
    const ids = async (q: string) => (await allPages(t, q)).map((r) => r.id);
    assert.deepEqual(await ids("&keyId=key_1"), expect((r) => r.keyId === "key_1"));
    assert.deepEqual(await ids("&userId=bob"), expect((r) => r.userId === "bob"));
    assert.deepEqual(await ids("&intent=notes.delete"), expect((r) => r.intent === "notes.delete"));
    assert.deepEqual(
      await ids("&outcome=refused&keyId=key_0"),
      expect((r) => r.outcome === "refused" && r.keyId === "key_0"),
    );
    const since = records[10].at;
    const until = records[20].at;
    assert.deepEqual(
      await ids(`&since=${since}&until=${until}`),
      expect((r) => r.at >= since && r.at < until),
    );
  });

  test("another project sees nothing of this one's", async () => {
    const other = await t.newProject("Other");
    const res = await t.sdk("GET", "/v1/sdk/activity", { as: other });
    assert.deepEqual(res.body, { activity: [], nextCursor: null });
    const exported = await t.sdk("GET", "/v1/sdk/activity/export", { as: other });
    assert.equal(exported.status, 200);
    const all = await t.sdk("GET", "/v1/sdk/activity?limit=200");
    assert.ok(all.body.activity.length >= 40);
  });

  test("refuses a bad query with the VALIDATION_ERROR envelope", async () => {
    for (const q of ["cursor=nope", "outcome=maybe", "since=yesterday", "limit=-1", "cursor=" + btoa("x y")]) {
      const res = await t.sdk("GET", `/v1/sdk/activity?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(res.body.ok, false);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });
});
