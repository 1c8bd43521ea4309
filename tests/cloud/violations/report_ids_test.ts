// Issue 33: a violation report carries the app's `reportId`; the cloud stores each id once per project and answers a
// repeat as the first delivery, with `duplicate: true`, on the single route and the batch route alike, so a retry
// after a lost answer never counts twice (not in the list, not in the totals, not toward auto-revoke).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const report = (apiKeyId: string, reportId?: string) => ({
  apiKeyId,
  kind: "FORBIDDEN_SCOPE",
  severity: "warning",
  ...reportId === undefined ? {} : { reportId },
});

describe("violation reports with a reportId", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  const total = async (keyId: string) => (await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}`)).body.total;

  test("the single route stores a reportId once and answers the repeat with the first id and duplicate: true", async () => {
    const keyId = crypto.randomUUID();
    const first = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, "r-1") } });
    const again = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, "r-1") } });
    assert.deepEqual([first.status, again.status], [200, 200]);
    assert.equal(first.body.duplicate, false);
    assert.deepEqual(again.body, { ok: true, id: first.body.id, duplicate: true });
    assert.equal(await total(keyId), 1);
  });

  test("the batch route stores each reportId once, within the batch and across batches", async () => {
    const keyId = crypto.randomUUID();
    const one = await t.sdk("POST", "/v1/sdk/violations/batch", {
      body: { violations: [report(keyId, "b-1"), report(keyId, "b-2"), report(keyId, "b-1")] },
    });
    assert.deepEqual(one.body.duplicates, [false, false, true]);
    assert.equal(one.body.ids[2], one.body.ids[0], "a repeat within the batch answers the first's id");
    const two = await t.sdk("POST", "/v1/sdk/violations/batch", {
      body: { violations: [report(keyId, "b-2"), report(keyId, "b-3")] },
    });
    assert.deepEqual(two.body.duplicates, [true, false]);
    assert.equal(two.body.ids[0], one.body.ids[1]);
    assert.equal(await total(keyId), 3);
  });

  test("without a reportId (tooling) every report is stored; a reportId is per project", async () => {
    const keyId = crypto.randomUUID();
    for (let i = 0; i < 2; i++) await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId) } });
    assert.equal(await total(keyId), 2);
    const other = await t.newProject("Other");
    const shared = crypto.randomUUID();
    const mine = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, shared) } });
    const theirs = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, shared) }, as: other });
    assert.deepEqual([mine.body.duplicate, theirs.body.duplicate], [false, false]);
  });

  test("a repeated report never counts toward auto-revoke", async () => {
    const policy = { autoRevoke: { threshold: 2, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"] } };
    const set = await t.sdk("PUT", "/v1/sdk/policy", { body: policy });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    try {
      const { id: keyId, key } = await t.mintKey("ann");
      for (let i = 0; i < 5; i++) {
        await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, "once") } });
      }
      await t.sdk("POST", "/v1/sdk/violations/batch", { body: { violations: [report(keyId, "once")] } });
      assert.equal(await total(keyId), 1);
      assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200, "the key still works");
    } finally {
      await t.sdk("PUT", "/v1/sdk/policy", { body: { autoRevoke: null } });
    }
  });

  test("a reportId is 1..200 characters", async () => {
    const keyId = crypto.randomUUID();
    for (const reportId of ["", "x".repeat(201)]) {
      const res = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId, reportId) } });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });
});
