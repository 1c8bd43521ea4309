// The app's cloud client over a real socket to a real cloud: batches go to the batch routes, single items to the
// single routes, and each answer is read in its one shape.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { createCloudClient } from "../../../core/cloud_link/mod.ts";
import { newViolation } from "../../../core/contract/mod.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { listen } from "../../fixtures/servers.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

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

test("feed polls carry the app instance's id, label, mode and SDK version; other calls do not", async () => {
  const seen: Headers[] = [];
  const recording = await listen((req) => {
    seen.push(req.headers);
    return t.cloud.handle(req);
  });
  try {
    const identity = {
      instanceId: "01JABCDEFGHJKMNPQRSTVWXYZ0",
      label: "x".repeat(150),
      mode: "hybrid" as const,
      sdkVersion: "9.9.9",
    };
    const c = createCloudClient(
      { endpoint: recording.url, projectId: t.project.id, sdkSecret: t.project.secret },
      identity,
    );
    await c.revocations(0, { limit: 10, waitSeconds: 0 });
    await c.listKeys("ann");
    const [poll, other] = seen;
    assert.equal(poll.get("x-svc-instance"), identity.instanceId);
    assert.equal(poll.get("x-svc-app-label"), "x".repeat(100), "the label is cut to 100 characters");
    assert.equal(poll.get("x-svc-mode"), "hybrid");
    assert.equal(poll.get("x-svc-sdk-version"), "9.9.9");
    assert.equal(other.get("x-svc-instance"), null);
  } finally {
    await recording.close();
  }
});

test("feed polls carry the outbox depth the app reports (x-svc-outbox-depth), and none when reading it fails", async () => {
  const seen: Headers[] = [];
  const recording = await listen((req) => {
    seen.push(req.headers);
    return t.cloud.handle(req);
  });
  try {
    let depth: number | Error = 7;
    const c = createCloudClient(
      { endpoint: recording.url, projectId: t.project.id, sdkSecret: t.project.secret },
      {
        instanceId: "01JABCDEFGHJKMNPQRSTVWXYZ1",
        label: "depth",
        mode: "hybrid",
        sdkVersion: "9.9.9",
        outboxDepth: () => depth instanceof Error ? Promise.reject(depth) : Promise.resolve(depth),
      },
    );
    await c.revocations(0, { limit: 10, waitSeconds: 0 });
    depth = new Error("storage closed");
    await c.revocations(0, { limit: 10, waitSeconds: 0 });
    await c.listKeys("ann");
    assert.deepEqual(seen.map((h) => h.get("x-svc-outbox-depth")), ["7", null, null]);
  } finally {
    await recording.close();
  }
});

test("a refused sdkSecret is CLOUD_CREDENTIALS_REFUSED and remembered until a call succeeds; a function secret is read each call", async () => {
  let secret = "svcs_wrong";
  let now = 1_000;
  const c = createCloudClient(
    { endpoint: server.url, projectId: t.project.id, sdkSecret: () => secret },
    undefined,
    { now: () => now, fetch },
  );
  await assert.rejects(c.listKeys("ann"), { code: "CLOUD_CREDENTIALS_REFUSED", status: 503 });
  now = 2_000;
  await assert.rejects(c.listKeys("ann"), { code: "CLOUD_CREDENTIALS_REFUSED" });
  assert.equal(c.refusedSince(), 1_000, "since the first refusal");
  secret = t.project.secret;
  assert.deepEqual(await c.listKeys("ann"), []);
  assert.equal(c.refusedSince(), null);
});

test("policy() reads the project's auto-revoke policy", async () => {
  assert.equal(await client().policy(), null);
  const policy = { threshold: 4, windowMinutes: 3 };
  assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { body: { autoRevoke: policy } })).status, 200);
  assert.deepEqual(await client().policy(), policy);
});
