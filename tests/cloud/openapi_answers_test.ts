// Every /v1 route driven for real (its successes and its main errors), each
// answer checked with Ajv against the document GET /v1/openapi.json serves:
// the status must be documented for the operation and the body must match it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { cloudRoutes } from "../../cloud/cloud_routes.ts";
import { hashSecret } from "../../core/contract/mod.ts";
import { deleteProject } from "../../cloud/projects/projects.ts";
import { type AnswerChecker, answerChecker, expectedStatuses } from "../fixtures/openapi_answers.ts";
import { ROUTES, setThrowawayKeyId } from "../fixtures/route_samples.ts";
import {
  type Answer,
  event,
  type Project,
  startTestCloud,
  TEST_METRICS_TOKEN,
  type TestCloud,
  violation,
} from "../fixtures/test_cloud.ts";

const BODY_LIMIT = 64_000;

let t: TestCloud;
let limited: TestCloud;
let checker: AnswerChecker;
let agentKey: string;

before(async () => {
  t = await startTestCloud({ bodyLimit: BODY_LIMIT });
  limited = await startTestCloud({
    bodyLimit: BODY_LIMIT,
    rateLimit: { perProject: { limit: 2, windowMs: 60_000 }, perAgentKey: { limit: 1, windowMs: 60_000 } },
  });
  checker = answerChecker((await t.raw("GET", "/v1/openapi.json")).body);
  agentKey = (await t.mintKey("bob")).key;
});
after(async () => {
  await t.close();
  await limited.close();
});

/** Sends a request to a route of `cloud` with the credential its auth wants (or none), and checks the answer. */
async function send(
  cloud: TestCloud,
  route: string,
  request: { path: string; body?: unknown; headers?: Record<string, string> },
  options: { credential?: boolean; as?: Project; key?: string } = {},
): Promise<Answer> {
  const [method, pattern] = route.split(" ");
  const path = request.path.startsWith("/") ? request.path : pattern + request.path;
  const auth = options.credential === false ? "none" : ROUTES[route].auth;
  const call = { body: request.body, headers: request.headers, as: options.as };
  const answer = auth === "sdk"
    ? await cloud.sdk(method, path, call)
    : auth === "agent"
    ? await cloud.agent(options.key ?? agentKey, method, path, call)
    : auth === "metrics"
    ? await cloud.raw(method, path, { ...call, headers: { authorization: `Bearer ${TEST_METRICS_TOKEN}` } })
    : await cloud.raw(method, path, call);
  checker.check(method, pattern, answer.status, answer.body);
  return answer;
}

const sample = (route: string) => ROUTES[route].request();

test("every /v1 route's success answer matches the document", async () => {
  setThrowawayKeyId((await t.mintKey("erin")).id);
  const fresh = await t.newProject("fresh");
  const before = await send(t, "GET /v1/sdk/intents", sample("GET /v1/sdk/intents"), { as: fresh });
  assert.equal(before.body.updatedAt, null, "before the first upload");
  const manifest = {
    name: "orders.list",
    title: "List orders",
    requiredScopes: ["orders:read"],
    input: { type: "object" },
    output: { type: "object", properties: { orders: { type: "array" } } },
  };
  await send(t, "PUT /v1/sdk/intents", { path: "", body: { intents: [manifest], scopes: ["orders:read"] } });
  await t.sdk("POST", "/v1/events", { body: event("seen", "bob") });
  for (const route of cloudRoutes) {
    const id = `${route.method} ${route.path}`;
    const answer = await send(t, id, sample(id));
    assert.equal(answer.status, ROUTES[id].status, `${id}: ${JSON.stringify(answer.body)}`);
  }
});

test("a cloud whose database does not answer is 503 at /v1/health, as documented", async () => {
  const down = await startTestCloud();
  try {
    down.client.close();
    const answer = await send(down, "GET /v1/health", sample("GET /v1/health"));
    assert.deepEqual([answer.status, answer.body.storage], [503, "unreachable"]);
  } finally {
    await down.close().catch(() => {});
  }
});

test("the other successes match too: a duplicate event, a batch, an invalid key, a page with items", async () => {
  const single = event("dup-1", "bob");
  assert.equal((await send(t, "POST /v1/events", { path: "", body: single })).status, 202);
  const again = await send(t, "POST /v1/events", { path: "", body: single });
  assert.deepEqual([again.status, again.body.duplicate], [200, true]);
  const batch = { events: [event("dup-2", "bob"), event("dup-3", "bob")] };
  assert.equal((await send(t, "POST /v1/events/batch", { path: "", body: batch })).status, 202);
  assert.equal((await send(t, "POST /v1/events/batch", { path: "", body: batch })).status, 200);
  const page = await send(t, "GET /v1/agent/inbox", { path: "?cursor=0&limit=10" });
  assert.ok(page.body.items.length >= 3);
  const tooling = await send(t, "GET /v1/agents/:agentId/inbox", { path: "/v1/agents/bob/inbox?limit=2" });
  const leased = await send(t, "GET /v1/agent/inbox", { path: "?lease=30&limit=2" });
  const [first, second] = leased.body.items.map((i: { leaseId: string }) => i.leaseId);
  const extend = { path: "", body: { leaseIds: [first], seconds: 60 } };
  assert.equal((await send(t, "POST /v1/agent/leases/extend", extend)).status, 200);
  const release = { path: "", body: { leaseIds: [first, second] } };
  assert.equal((await send(t, "POST /v1/agent/leases/release", release)).status, 200);
  assert.equal(tooling.body.items.length, 2);
  const verified = await send(t, "POST /v1/sdk/keys/verify", { path: "", body: { key: agentKey } });
  assert.equal(verified.body.valid, true);
  await send(t, "GET /v1/sdk/violations", { path: "?since=2020-01-01&limit=200&offset=0" });
});

test("another project's key: revoking it is 404, mirroring its id or hash stores this project's own record", async () => {
  const other = await t.newProject("other");
  const { id, key } = await t.mintKey("frank", {}, other);
  assert.equal((await send(t, "DELETE /v1/sdk/keys/:id", { path: `/v1/sdk/keys/${id}` })).status, 404);
  const reroll = { path: `/v1/sdk/keys/${id}/reroll`, body: { userId: "frank" } };
  assert.equal((await send(t, "POST /v1/sdk/keys/:id/reroll", reroll)).status, 404, "another project's key");
  // Ids and hashes are unique per project: a record with another project's id, or its hash under a fresh id
  // (even one that says revoked), is stored as this project's own, and the other project's key is untouched.
  const { body } = sample("PUT /v1/sdk/keys/:id") as { body: Record<string, unknown> };
  const revokedAt = new Date().toISOString();
  const byId = { path: `/v1/sdk/keys/${id}`, body: { ...body, userId: "mallory", agentId: "mallory", revokedAt } };
  const hash = await hashSecret(key);
  const byHash = {
    path: `/v1/sdk/keys/${crypto.randomUUID()}`,
    body: { ...body, userId: "mallory", agentId: "mallory", hash, revokedAt },
  };
  for (const mirror of [byId, byHash]) {
    const answer = await send(t, "PUT /v1/sdk/keys/:id", mirror);
    assert.deepEqual([answer.status, answer.body], [200, { ok: true }], mirror.path);
  }
  const mine = (await t.sdk("GET", "/v1/sdk/keys?userId=mallory")).body.keys;
  assert.equal(mine.length, 2, "both stored here");
  const [kept] = (await t.sdk("GET", "/v1/sdk/keys?userId=frank", { as: other })).body.keys;
  assert.deepEqual([kept.id, kept.name, kept.revokedAt], [id, "k", null], "nor to the other project's key");
  assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200, "which still authenticates");
});

test("a mint for an OAuth grant that a revoke of one of its keys ended is 404", async () => {
  const grant = { path: "", body: { userId: "gina", name: "client", scopes: [], grantId: "grant-1" } };
  const first = await send(t, "POST /v1/sdk/keys", grant);
  assert.equal(first.status, 201);
  assert.equal((await send(t, "DELETE /v1/sdk/keys/:id", { path: `/v1/sdk/keys/${first.body.id}` })).status, 200);
  const again = await send(t, "POST /v1/sdk/keys", grant);
  assert.deepEqual([again.status, again.body.error.code], [404, "NOT_FOUND"]);
});

test("a policy change for a project deleted after its request was authenticated is 404", async () => {
  const doomed = await t.newProject("doomed");
  const text = new TextEncoder().encode(JSON.stringify({ autoRevoke: null }));
  // The body is read after authentication: the project goes when the route first asks for it.
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      assert.equal(await deleteProject(t.storage, doomed.id), true);
      controller.enqueue(text);
      controller.close();
    },
  }, { highWaterMark: 0 });
  const res = await t.cloud.handle(
    new Request("http://cloud.test/v1/sdk/policy", {
      method: "PUT",
      headers: {
        authorization: `Bearer ${doomed.secret}`,
        "x-svc-project": doomed.id,
        "content-type": "application/json",
      },
      body,
      duplex: "half",
    } as RequestInit),
  );
  const answer = await res.json();
  checker.check("PUT", "/v1/sdk/policy", res.status, answer);
  assert.deepEqual([res.status, answer.error.code], [404, "NOT_FOUND"]);
});

/** A request of the right shape but wrong values, per route that takes input. */
const BAD_INPUT: Record<string, { path: string; body?: unknown }> = {
  "PUT /v1/sdk/intents": { path: "", body: { intents: "none" } },
  "POST /v1/sdk/violations": { path: "", body: { violation: { severity: "loud" } } },
  "POST /v1/sdk/violations/batch": { path: "", body: { violations: [] } },
  "GET /v1/sdk/violations": { path: "?limit=ten" },
  "POST /v1/sdk/activity/batch": { path: "", body: { activity: [{ id: "act_nope" }] } },
  "GET /v1/sdk/activity": { path: "?cursor=nope" },
  "GET /v1/sdk/activity/export": { path: "?until=later" },
  "POST /v1/events": { path: "", body: { eventId: "", type: "t", agentId: "bob", payload: [] } },
  "POST /v1/events/batch": { path: "", body: { events: [{ eventId: "" }] } },
  "GET /v1/agent/inbox": { path: "?cursor=-1" },
  "POST /v1/agent/ack": { path: "", body: { inboxIds: [] } },
  "GET /v1/agents/:agentId/inbox": { path: "/v1/agents/bob/inbox?wait=99" },
  "POST /v1/agents/:agentId/ack": { path: "/v1/agents/bob/ack", body: { inboxIds: [0.5] } },
  "POST /v1/agent/leases/extend": { path: "", body: { leaseIds: ["l"], seconds: 43_201 } },
  "POST /v1/agent/leases/release": { path: "", body: { leaseIds: [] } },
  "GET /v1/agents/:agentId/dead-letters": { path: `/v1/agents/${"x".repeat(201)}/dead-letters` },
  "POST /v1/agents/:agentId/redrive": { path: "/v1/agents/bob/redrive", body: { inboxIds: [] } },
  "POST /v1/agents/:agentId/replay": { path: "/v1/agents/bob/replay", body: { since: "yesterday" } },
  "POST /v1/sdk/keys": { path: "", body: { userId: "u", name: "", scopes: [] } },
  "GET /v1/sdk/keys": { path: "?userId=" },
  "DELETE /v1/sdk/keys": { path: "?userId=" },
  "POST /v1/sdk/keys/verify": { path: "", body: {} },
  "DELETE /v1/sdk/keys/:id": { path: `/v1/sdk/keys/${"x".repeat(201)}` },
  "POST /v1/sdk/keys/:id/reroll": { path: "/v1/sdk/keys/k/reroll", body: { userId: "erin", graceMinutes: 10_081 } },
  "PUT /v1/sdk/keys/:id": { path: "/v1/sdk/keys/not-a-uuid", body: {} },
  "GET /v1/sdk/keys/revocations": { path: "?after=-1" },
  "PUT /v1/sdk/policy": { path: "", body: { retentionDays: 0 } },
  "GET /v1/sdk/audit": { path: "?since=soon" },
  "POST /v1/sdk/keys/used": { path: "", body: { keys: [] } },
  "POST /v1/sdk/approvals/batch": { path: "", body: { approvals: [] } },
  "GET /v1/sdk/approvals": { path: "?status=maybe" },
};

test("401, 400, 413 and 429 answers of every /v1 route match the document", async () => {
  for (const route of cloudRoutes) {
    const id = `${route.method} ${route.path}`;
    if (route.auth !== "none") {
      assert.equal((await send(t, id, sample(id), { credential: false })).status, 401, id);
    }
    if (route.body || route.query || route.params) {
      const bad = await send(t, id, BAD_INPUT[id]);
      assert.equal(bad.status, 400, `${id}: ${JSON.stringify(bad.body)}`);
    }
    if (route.body) {
      const huge = { ...sample(id), body: JSON.stringify({ pad: "x".repeat(BODY_LIMIT) }) };
      assert.equal((await send(t, id, huge)).status, 413, id);
      const notJson = await send(t, id, { ...sample(id), body: "{" });
      assert.equal(notJson.body.error.code, "INVALID_JSON", id);
    }
  }
  const { key } = await limited.mintKey("gina"); // the project's first token
  await limited.sdk("PUT", "/v1/sdk/intents", { body: { intents: [] } }); // and its second
  for (let i = 0; i < 2; i++) { // the two tokens of its violation reports' own bucket
    await limited.sdk("POST", "/v1/sdk/violations", { body: { violation: violation() } });
  }
  assert.equal((await limited.agent(key, "GET", "/v1/agent/inbox")).status, 200); // the key's only token
  // The mirror draws from the budget in its run when it does not revoke (as its sample does).
  for (const route of cloudRoutes.filter((r) => r.limit !== undefined || r.name === "mirrorKey")) {
    const id = `${route.method} ${route.path}`;
    const answer = await send(limited, id, sample(id), { key });
    assert.equal(answer.status, 429, `${id}: ${JSON.stringify(answer.body)}`);
  }
});

test("every status the /v1 routes must reach was reached and matched the document", () => {
  const expected = cloudRoutes.flatMap(expectedStatuses);
  const missing = expected.filter((s) => !checker.covered.has(s));
  assert.deepEqual(missing, []);
});
