import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const intent = (name: string) => ({
  name,
  title: `Do ${name}`,
  requiredScopes: ["orders:read"],
  input: { type: "object", properties: { id: { type: "string" } } },
  output: { type: "object" },
});

describe("PUT and GET /v1/sdk/intents", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("answers an empty manifest before the first upload", async () => {
    const res = await t.sdk("GET", "/v1/sdk/intents");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { intents: [], scopes: [], updatedAt: null });
  });

  test("stores a manifest and answers it back", async () => {
    const put = await t.sdk("PUT", "/v1/sdk/intents", {
      body: { intents: [intent("a"), intent("b")], scopes: ["orders:read"] },
    });
    assert.equal(put.status, 200);
    assert.equal(put.body.ok, true);
    assert.equal(put.body.count, 2);
    assert.match(put.body.updatedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const get = await t.sdk("GET", "/v1/sdk/intents");
    assert.deepEqual(get.body, {
      intents: [intent("a"), intent("b")],
      scopes: ["orders:read"],
      updatedAt: put.body.updatedAt,
    });
  });

  test("replaces the manifest on the next upload; scopes default to []", async () => {
    await t.sdk("PUT", "/v1/sdk/intents", { body: { intents: [intent("c")] } });
    const get = await t.sdk("GET", "/v1/sdk/intents");
    assert.deepEqual(get.body.intents.map((i: { name: string }) => i.name), ["c"]);
    assert.deepEqual(get.body.scopes, []);
  });

  test("refuses a malformed manifest with 400 VALIDATION_ERROR and issue paths", async () => {
    const res = await t.sdk("PUT", "/v1/sdk/intents", {
      body: { intents: [{ ...intent("a"), requiredScopes: "x" }, intent("b"), intent("b")] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path);
    assert.ok(paths.includes("intents.0.requiredScopes"), paths.join());
    const missing = await t.sdk("PUT", "/v1/sdk/intents", { body: {} });
    assert.deepEqual(missing.body.error.details.issues.map((i: { path: string }) => i.path), ["intents"]);
  });

  test("refuses duplicate intent names", async () => {
    const res = await t.sdk("PUT", "/v1/sdk/intents", { body: { intents: [intent("b"), intent("b")] } });
    assert.equal(res.status, 400);
    assert.deepEqual(res.body.error.details.issues, [{ path: "intents.1.name", message: "Duplicate intent name" }]);
  });

  test("keeps each project's manifest to itself", async () => {
    const other = await t.newProject();
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/intents", { as: other })).body.intents, []);
  });
});
