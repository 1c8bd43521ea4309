// POST /v1/sdk/keys/used: a hybrid app mirrors its keys' lastUsedAt, shown by GET /v1/sdk/keys.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const USED = "/v1/sdk/keys/used";

describe("POST /v1/sdk/keys/used", () => {
  const clock = Date.parse("2026-03-01T12:00:00.000Z");
  let t: TestCloud;
  before(async () => t = await startTestCloud({ now: () => clock }));
  after(() => t.close());

  const lastUsed = async (userId: string) =>
    (await t.sdk("GET", `/v1/sdk/keys?userId=${userId}`)).body.keys.map((k: { lastUsedAt: string }) => k.lastUsedAt);

  test("moves lastUsedAt forward, never back, and GET /v1/sdk/keys shows it", async () => {
    const k = await t.mintKey("erin");
    const at = "2026-03-01T11:00:00.000Z";
    const res = await t.sdk("POST", USED, { body: { keys: [{ id: k.id, lastUsedAt: at }] } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { ok: true, updated: 1 });
    assert.deepEqual(await lastUsed("erin"), [at]);
    const older = await t.sdk("POST", USED, { body: { keys: [{ id: k.id, lastUsedAt: "2026-03-01T10:00:00Z" }] } });
    assert.deepEqual(older.body, { ok: true, updated: 0 });
    assert.deepEqual(await lastUsed("erin"), [at]);
  });

  test("counts a use in the future as now, and the latest of one key's uses in a batch", async () => {
    const k = await t.mintKey("fay");
    const keys = [
      { id: k.id, lastUsedAt: "2026-03-01T11:30:00.000Z" },
      { id: k.id, lastUsedAt: "2099-01-01T00:00:00.000Z" },
    ];
    assert.deepEqual((await t.sdk("POST", USED, { body: { keys } })).body, { ok: true, updated: 1 });
    assert.deepEqual(await lastUsed("fay"), [new Date(clock).toISOString()]);
  });

  test("touches only the project's own keys", async () => {
    const other = await t.newProject("other");
    const k = await t.mintKey("gus");
    const res = await t.sdk("POST", USED, {
      as: other,
      body: { keys: [{ id: k.id, lastUsedAt: "2026-03-01T11:00:00.000Z" }] },
    });
    assert.deepEqual(res.body, { ok: true, updated: 0 });
    assert.deepEqual(await lastUsed("gus"), [null]);
  });

  test("refuses an empty batch or one over 500 keys with 400", async () => {
    assert.equal((await t.sdk("POST", USED, { body: { keys: [] } })).status, 400);
    const keys = Array.from({ length: 501 }, () => ({ id: crypto.randomUUID(), lastUsedAt: "2026-03-01T11:00:00Z" }));
    assert.equal((await t.sdk("POST", USED, { body: { keys } })).status, 400);
  });
});

describe("POST /v1/sdk/keys/used and the write budget", () => {
  test("draws one token per request, however many keys it carries", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 2, windowMs: 60_000 } } });
    try {
      const keys = Array.from({ length: 500 }, () => ({ id: crypto.randomUUID(), lastUsedAt: "2026-03-01T11:00:00Z" }));
      assert.equal((await t.sdk("POST", USED, { body: { keys } })).status, 200);
      assert.equal((await t.sdk("POST", USED, { body: { keys } })).status, 200);
      assert.equal((await t.sdk("POST", USED, { body: { keys } })).status, 429);
    } finally {
      await t.close();
    }
  });
});
