import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

/** A minimal report. */
const report = (apiKeyId: string, kind = "FORBIDDEN_SCOPE") => ({ apiKeyId, kind, severity: "info" });

describe("POST /v1/sdk/violations/batch", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("stores every report and answers their ids in order", async () => {
    const keyId = crypto.randomUUID();
    const res = await t.sdk("POST", "/v1/sdk/violations/batch", {
      body: { violations: [report(keyId, "A"), report(keyId, "B"), report(keyId, "C")] },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.body).sort(), ["duplicates", "ids", "ok"]);
    assert.deepEqual(res.body.duplicates, [false, false, false]);
    assert.equal(res.body.ids.length, 3);
    const listed = (await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}`)).body.violations;
    const kindById = Object.fromEntries(listed.map((v: { id: string; kind: string }) => [v.id, v.kind]));
    assert.deepEqual(res.body.ids.map((id: string) => kindById[id]), ["A", "B", "C"]);
  });

  test("accepts 500 reports and refuses 501, none, or one report alone", async () => {
    const keyId = crypto.randomUUID();
    const violations = Array.from({ length: 501 }, () => report(keyId));
    const tooMany = await t.sdk("POST", "/v1/sdk/violations/batch", { body: { violations } });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.details.issues[0].path, "violations");
    assert.equal((await t.sdk("POST", "/v1/sdk/violations/batch", { body: { violations: [] } })).status, 400);
    const alone = await t.sdk("POST", "/v1/sdk/violations/batch", { body: { violation: report(keyId) } });
    assert.equal(alone.status, 400);
    const ok = await t.sdk("POST", "/v1/sdk/violations/batch", { body: { violations: violations.slice(0, 500) } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.ids.length, 500);
  });

  test("the single route answers { ok, id, duplicate } only and refuses a batch body, naming the batch route", async () => {
    const keyId = crypto.randomUUID();
    const one = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: report(keyId) } });
    assert.deepEqual(Object.keys(one.body).sort(), ["duplicate", "id", "ok"]);
    const res = await t.sdk("POST", "/v1/sdk/violations", { body: { violations: [report(keyId)] } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(
      res.body.error.message,
      "POST /v1/sdk/violations takes one report; send { violations: [...] } to POST /v1/sdk/violations/batch",
    );
    assert.deepEqual(res.body.error.details.issues, [{
      path: "violations",
      message: "A batch goes to POST /v1/sdk/violations/batch",
    }]);
    const total = (await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}`)).body.total;
    assert.equal(total, 1, "the refused batch stored nothing");
  });
});
