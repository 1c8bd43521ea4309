import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { createCloud } from "../../cloud/mod.ts";
import { type CloudLimit, cloudLimits, cloudRoutes } from "../../cloud/cloud_routes.ts";
import { call, startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

describe("handle()", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud({ bodyLimit: 2048 }));
  after(() => t.close());

  test("answers an unknown route with 404 NOT_FOUND in the error envelope", async () => {
    for (const path of ["/v1/nope", "/v2/sdk/intents", "/", "/v1/sdk/intents/extra"]) {
      const res = await t.sdk("GET", path);
      assert.equal(res.status, 404, path);
      assert.deepEqual(res.body, { ok: false, error: { code: "NOT_FOUND", message: "Not found" } });
      assert.equal(res.headers.get("content-type"), "application/json");
    }
  });

  test("answers a wrong method with 405 METHOD_NOT_ALLOWED and an Allow header", async () => {
    const res = await t.sdk("DELETE", "/v1/sdk/intents");
    assert.equal(res.status, 405);
    assert.equal(res.body.error.code, "METHOD_NOT_ALLOWED");
    assert.equal(res.headers.get("allow"), "PUT, GET");
    assert.equal((await t.sdk("GET", "/v1/events")).headers.get("allow"), "POST");
  });

  test("answers 404 for a route's path without /v1", async () => {
    const res = await t.sdk("GET", "/sdk/intents");
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, "NOT_FOUND");
  });

  test("works when passed unbound", async () => {
    const { handle } = t.cloud;
    const res = await handle(new Request("http://x/v1/nope"));
    assert.equal(res.status, 404);
  });

  test("refuses a body that is not JSON with 400 INVALID_JSON", async () => {
    const res = await t.sdk("PUT", "/v1/sdk/intents", { body: "{nope" });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "INVALID_JSON");
  });

  test("refuses a JSON route without the JSON content type with 400 INVALID_JSON", async () => {
    const res = await t.sdk("PUT", "/v1/sdk/intents", { body: "{}", headers: { "content-type": "text/plain" } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "INVALID_JSON");
  });

  test("refuses a body over the configured limit with 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await t.sdk("POST", "/v1/events", {
      body: { eventId: "big", type: "t", agentId: "a", payload: { s: "x".repeat(4096) } },
    });
    assert.equal(res.status, 413);
    assert.equal(res.body.error.code, "PAYLOAD_TOO_LARGE");
  });

  test("authenticates before reading the body", async () => {
    const res = await t.raw("PUT", "/v1/sdk/intents", { body: "{nope" });
    assert.equal(res.status, 401);
  });

  test("keeps the route table as data: method, path, auth kind and schemas", () => {
    const names = new Set(cloudRoutes.map((r) => r.name));
    assert.equal(names.size, cloudRoutes.length);
    for (const route of cloudRoutes) {
      assert.match(route.path, /^\/v1\//);
      assert.ok(["sdk", "agent", "none", "metrics"].includes(route.auth));
    }
    const agentRoutes = cloudRoutes.filter((r) => r.auth === "agent").map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(agentRoutes, [
      "GET /v1/agent/inbox",
      "POST /v1/agent/ack",
      "POST /v1/agent/leases/extend",
      "POST /v1/agent/leases/release",
    ]);
  });
});

describe("createCloud()", () => {
  test("answers 500 INTERNAL without SQL or stack when the database fails, and logs the cause", async () => {
    const client = createClient({ url: ":memory:" });
    const logged: string[] = [];
    const cloud = createCloud({ db: client, logger: (message) => logged.push(message) });
    await cloud.ready;
    await client.execute("DROP TABLE cloud_projects");
    const res = await call(cloud, "GET", "/v1/sdk/intents", {
      headers: { authorization: `Bearer svcs_${"a".repeat(40)}`, "x-svc-project": "prj_01JABCDEFGHJKMNPQRSTVWXYZ0" },
    });
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { ok: false, error: { code: "INTERNAL", message: "Internal error" } });
    // The request's cause is logged once (the background purge may log its own failure too).
    assert.equal(logged.filter((message) => message.startsWith("INTERNAL")).length, 1);
    await cloud.close();
    client.close();
  });

  test("answers 503 CLOUD_UNAVAILABLE with Retry-After once closed", async () => {
    const cloud = createCloud({ db: ":memory:" });
    await cloud.close();
    const res = await call(cloud, "GET", "/v1/sdk/intents");
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "CLOUD_UNAVAILABLE");
    assert.equal(res.headers.get("retry-after"), "1");
  });
});

describe("cloudLimits", () => {
  test("every limited route names one of the cloud's limits and has that limit's auth kind", () => {
    const limited = cloudRoutes.filter((route) => route.limit !== undefined);
    assert.ok(limited.length > 0);
    for (const route of limited) {
      const rule = cloudLimits[route.limit as CloudLimit];
      assert.ok(rule, `${route.method} ${route.path}: unknown limit ${route.limit}`);
      assert.equal(route.auth, rule.auth, `${route.method} ${route.path}`);
    }
  });

  test("a project's writes share one bucket, an agent key's requests one per key of the project", () => {
    assert.equal(cloudLimits.projectWrites.bucket({ projectId: "prj_1" } as never), "prj_1");
    const a = cloudLimits.agentKey.bucket({ projectId: "prj_1", keyId: "k" } as never);
    const b = cloudLimits.agentKey.bucket({ projectId: "prj_2", keyId: "k" } as never);
    assert.notEqual(a, b);
  });
});
