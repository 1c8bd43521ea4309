import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";

describe("POST /v1/sdk/violations", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("stores a report and answers { ok: true, id }", async () => {
    const keyId = crypto.randomUUID();
    const res = await t.sdk("POST", "/v1/sdk/violations", {
      body: {
        violation: violation({
          apiKeyId: keyId,
          userId: "u1",
          intent: "refund",
          message: "no scope",
          metadata: { missing: ["refunds:write"] },
          at: "2025-03-01T10:00:00+02:00",
        }),
      },
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.match(res.body.id, /^[0-9a-f-]{36}$/);
    const list = await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}`);
    assert.deepEqual(list.body, {
      violations: [{
        id: res.body.id,
        keyId,
        userId: "u1",
        intent: "refund",
        kind: "FORBIDDEN_SCOPE",
        severity: "warning",
        message: "no scope",
        metadata: { missing: ["refunds:write"] },
        createdAt: "2025-03-01T08:00:00.000Z",
      }],
      total: 1,
    });
  });

  test("fills the optional fields with null, {} and the time of the report", async () => {
    const keyId = crypto.randomUUID();
    const before = new Date().toISOString();
    await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation({ apiKeyId: keyId }) } });
    const [v] = (await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}`)).body.violations;
    assert.equal(v.userId, null);
    assert.equal(v.intent, null);
    assert.equal(v.message, null);
    assert.deepEqual(v.metadata, {});
    assert.ok(v.createdAt >= before);
  });

  test("refuses a malformed report with 400 VALIDATION_ERROR", async () => {
    const cases: [unknown, string][] = [
      [{}, "violation"],
      [{ violation: violation({ apiKeyId: "not-a-uuid" }) }, "violation.apiKeyId"],
      [{ violation: violation({ severity: "fatal" }) }, "violation.severity"],
      [{ violation: violation({ kind: "" }) }, "violation.kind"],
      [{ violation: violation({ at: "yesterday" }) }, "violation.at"],
      [{ violation: violation({ metadata: [1] }) }, "violation.metadata"],
    ];
    for (const [body, path] of cases) {
      const res = await t.sdk("POST", "/v1/sdk/violations", { body });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.issues[0].path, path);
    }
  });
});

describe("GET /v1/sdk/violations", () => {
  let t: TestCloud;
  const keyA = crypto.randomUUID();
  const keyB = crypto.randomUUID();
  before(async () => {
    t = await startTestCloud();
    // 240 reports: keys A/B alternating, severities cycling, kinds K0/K1, one per minute.
    const severities = ["info", "warning", "severe"];
    for (let i = 0; i < 240; i++) {
      const at = new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString();
      const body = {
        violation: violation({
          apiKeyId: i % 2 ? keyB : keyA,
          severity: severities[i % 3],
          kind: `K${i % 4 < 2 ? 0 : 1}`,
          at,
        }),
      };
      await t.sdk("POST", "/v1/sdk/violations", { body });
    }
  });
  after(() => t.close());
  const list = async (query: string) => (await t.sdk("GET", `/v1/sdk/violations${query}`)).body;

  test("answers 50 by default, newest first, with the total", async () => {
    const body = await list("");
    assert.equal(body.violations.length, 50);
    assert.equal(body.total, 240);
    assert.equal(body.violations[0].createdAt, new Date(Date.UTC(2025, 0, 1, 0, 239)).toISOString());
    const times = body.violations.map((v: { createdAt: string }) => v.createdAt);
    assert.deepEqual(times, [...times].sort().reverse());
  });

  test("clamps a limit above 200 to 200", async () => {
    assert.equal((await list("?limit=1000")).violations.length, 200);
    assert.equal((await list("?limit=0")).violations.length, 0);
  });

  test("pages with offset, stably and without overlap", async () => {
    const seen = new Set<string>();
    for (let offset = 0; offset < 240; offset += 70) {
      const body = await list(`?limit=70&offset=${offset}`);
      for (const v of body.violations) seen.add(v.id);
      assert.equal(body.total, 240);
    }
    assert.equal(seen.size, 240);
    assert.deepEqual((await list("?offset=500")).violations, []);
  });

  test("combines every filter, and total counts all matches", async () => {
    const body = await list(`?keyId=${keyA}&severity=warning&kind=K0&since=2025-01-01T02:00:00.000Z&limit=5`);
    // keyA: even i; warning: i % 3 == 1; K0: i % 4 in {0,1}; since: i >= 120.
    const expected = [...Array(240).keys()].filter((i) => i % 2 === 0 && i % 3 === 1 && i % 4 < 2 && i >= 120);
    assert.equal(body.total, expected.length);
    assert.equal(body.violations.length, Math.min(5, expected.length));
    for (const v of body.violations) {
      assert.equal(v.keyId, keyA);
      assert.equal(v.severity, "warning");
      assert.equal(v.kind, "K0");
      assert.ok(v.createdAt >= "2025-01-01T02:00:00.000Z");
    }
  });

  test("treats since as inclusive and accepts an offset or a date", async () => {
    const at = new Date(Date.UTC(2025, 0, 1, 3, 59)).toISOString(); // i = 239
    assert.equal((await list(`?since=${at}`)).total, 1);
    assert.equal((await list(`?since=2025-01-01T05:59:00%2B02:00`)).total, 1);
    assert.equal((await list("?since=2025-01-02")).total, 0);
  });

  test("breaks ties on createdAt by id, newest id first", async () => {
    const t2 = await startTestCloud();
    const at = "2025-06-01T00:00:00.000Z";
    for (let i = 0; i < 5; i++) await t2.sdk("POST", "/v1/sdk/violations", { body: { violation: violation({ at }) } });
    const ids = (await t2.sdk("GET", "/v1/sdk/violations")).body.violations.map((v: { id: string }) => v.id);
    assert.deepEqual(ids, [...ids].sort().reverse());
    await t2.close();
  });

  test("refuses bad query values with 400 VALIDATION_ERROR", async () => {
    for (
      const [query, path] of [
        ["?severity=fatal", "severity"],
        ["?limit=-1", "limit"],
        ["?limit=1.5", "limit"],
        ["?limit=abc", "limit"],
        ["?offset=-3", "offset"],
        ["?since=last-week", "since"],
      ]
    ) {
      const res = await t.sdk("GET", `/v1/sdk/violations${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.issues[0].path, path);
    }
  });

  test("shows a project only its own violations", async () => {
    const other = await t.newProject();
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/violations", { as: other })).body, { violations: [], total: 0 });
  });
});
