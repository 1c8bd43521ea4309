// The app's cloud client over a real socket to a real cloud: batches go to the batch routes, single items to the
// single routes, and each answer is read in its one shape.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createCloudClient } from "../../../../core/app/cloud_link/mod.ts";
import { newViolation } from "../../../../core/contract/mod.ts";
import type { RunningServer } from "../../../../core/http/mod.ts";
import { listen } from "../../../fixtures/servers.ts";
import { startTestCloud, type TestCloud } from "../../../fixtures/test_cloud.ts";

let t: TestCloud;
let server: RunningServer;
const called: string[] = [];
before(async () => {
  t = await startTestCloud();
  server = await listen((req) => {
    called.push(`${req.method} ${new URL(req.url).pathname}`);
    return t.cloud.handle(req);
  });
});
after(async () => {
  await server.close();
  await t.close();
});

const client = () => createCloudClient({ endpoint: server.url, projectId: t.project.id, sdkSecret: t.project.secret });
const report = (message: string) =>
  newViolation("FORBIDDEN_SCOPE", { keyId: crypto.randomUUID(), userId: "ann", message });

test("reportViolations() posts to /v1/sdk/violations/batch and reportViolation() to /v1/sdk/violations", async () => {
  called.length = 0;
  const [a, b, c] = [report("a"), report("b"), report("c")];
  await client().reportViolations([a, b]);
  await client().reportViolation(c);
  assert.deepEqual(called, ["POST /v1/sdk/violations/batch", "POST /v1/sdk/violations"]);
  for (const v of [a, b, c]) {
    const listed = await t.sdk("GET", `/v1/sdk/violations?keyId=${v.keyId}`);
    assert.equal(listed.body.violations[0]?.message, v.message);
  }
});

test("postEvents() posts one event to /v1/events and several to /v1/events/batch, a result per event", async () => {
  called.length = 0;
  const event = (eventId: string) => ({ eventId, type: "t", agentId: "bob", payload: {} });
  const [one] = await client().postEvents([event("c-1")]);
  const many = await client().postEvents([event("c-2"), event("c-1"), event("c-3")]);
  assert.deepEqual(called, ["POST /v1/events", "POST /v1/events/batch"]);
  assert.deepEqual(many.map((r) => r.duplicate), [false, true, false]);
  assert.equal(many[1].inboxId, one.inboxId);
});
