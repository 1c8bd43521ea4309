// The revocation feed (GET /v1/sdk/keys/revocations) and the credential
// re-check of long polls, on a real in-memory libSQL cloud.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { rotateSdkSecret } from "../../../cloud/projects/projects.ts";
import { waitingPolls } from "../../../cloud/create_cloud.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const FEED = "/v1/sdk/keys/revocations";

describe("GET /v1/sdk/keys/revocations", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("answers an empty feed with nextSeq equal to after", async () => {
    const fresh = await t.newProject("empty feed");
    const res = await t.sdk("GET", `${FEED}?after=7`, { as: fresh });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { revocations: [], nextSeq: 7 });
  });

  test("numbers every revocation per project from 1 with its reason: tooling, app, dashboard, auto", async () => {
    const p = await t.newProject("reasons");
    const tooling = await t.mintKey("u1", {}, p);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${tooling.id}`, { as: p })).status, 200);
    const { record } = await mintAgentKey("u2", { name: "m", scopes: [], agentId: "u2" });
    const mirror = { ...record, lastUsedAt: undefined, id: undefined, revokedAt: null };
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as: p, body: mirror })).status, 200);
    const revokedMirror = { ...mirror, revokedAt: "2026-01-01T00:00:00.000Z" };
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as: p, body: revokedMirror })).status, 200);
    const dashboard = await t.mintKey("u3", {}, p);
    await t.storage.keys.revokeKey(p.id, dashboard.id, new Date().toISOString(), "dashboard");
    const res = await t.sdk("GET", FEED, { as: p });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.revocations.map((r: { seq: number; keyId: string; reason: string }) => [r.seq, r.keyId, r.reason]),
      [[1, tooling.id, "tooling"], [2, record.id, "app"], [3, dashboard.id, "dashboard"]],
    );
    assert.equal(res.body.revocations[1].revokedAt, "2026-01-01T00:00:00.000Z");
    assert.equal(res.body.nextSeq, 3);
  });

  test("adds no second row when a revoked key is revoked or mirrored again", async () => {
    const p = await t.newProject("once");
    const { record } = await mintAgentKey("u", { name: "m", scopes: [], agentId: "u" });
    const body = { ...record, lastUsedAt: undefined, id: undefined, revokedAt: null };
    await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as: p, body });
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${record.id}`, { as: p })).status, 200);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${record.id}`, { as: p })).status, 200);
    const mirrored = { ...body, revokedAt: new Date().toISOString() };
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as: p, body: mirrored })).status, 200);
    const res = await t.sdk("GET", FEED, { as: p });
    assert.equal(res.body.revocations.length, 1);
    assert.equal(res.body.revocations[0].reason, "tooling", "the first revocation's reason stays");
  });

  test("pages with after and limit, ascending, without overlap", async () => {
    const p = await t.newProject("pages");
    const ids = [];
    for (let i = 0; i < 5; i++) {
      const k = await t.mintKey(`p${i}`, {}, p);
      await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: p });
      ids.push(k.id);
    }
    const first = await t.sdk("GET", `${FEED}?after=0&limit=2`, { as: p });
    assert.deepEqual(first.body.revocations.map((r: { keyId: string }) => r.keyId), ids.slice(0, 2));
    assert.equal(first.body.nextSeq, 2);
    const rest = await t.sdk("GET", `${FEED}?after=${first.body.nextSeq}&limit=50`, { as: p });
    assert.deepEqual(rest.body.revocations.map((r: { keyId: string }) => r.keyId), ids.slice(2));
    assert.equal(rest.body.nextSeq, 5);
  });

  test("keeps each project's feed to itself", async () => {
    const a = await t.newProject("iso a");
    const b = await t.newProject("iso b");
    const k = await t.mintKey("x", {}, a);
    await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: a });
    assert.equal((await t.sdk("GET", FEED, { as: a })).body.revocations.length, 1);
    assert.deepEqual((await t.sdk("GET", FEED, { as: b })).body, { revocations: [], nextSeq: 0 });
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: b })).status, 404);
    assert.deepEqual((await t.sdk("GET", FEED, { as: b })).body.revocations, []);
  });

  test("holds a poll open with wait until a revocation arrives, then answers it", async () => {
    const p = await t.newProject("wait");
    const k = await t.mintKey("w", {}, p);
    const poll = t.sdk("GET", `${FEED}?after=0&wait=10`, { as: p });
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: p });
    const res = await poll;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.revocations.map((r: { keyId: string }) => r.keyId), [k.id]);
  });

  test("answers an empty page when wait runs out", async () => {
    const p = await t.newProject("timeout");
    const res = await t.sdk("GET", `${FEED}?after=0&wait=0.2`, { as: p });
    assert.deepEqual(res.body, { revocations: [], nextSeq: 0 });
  });

  test("refuses a bad after, limit or wait with 400 VALIDATION_ERROR", async () => {
    for (const query of ["after=-1", "after=x", "limit=-2", "wait=21", "wait=abc"]) {
      const res = await t.sdk("GET", `${FEED}?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, "VALIDATION_ERROR", query);
    }
  });

  test("refuses a feed poll already open when the sdkSecret is rotated meanwhile", async () => {
    const p = await t.newProject("rotate feed");
    const k = await t.mintKey("r", {}, p);
    const poll = t.sdk("GET", `${FEED}?after=0&wait=10`, { as: p });
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    const secret = (await rotateSdkSecret(t.storage, p.id))!;
    await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`, { as: { id: p.id, secret } });
    const res = await poll;
    assert.equal(res.status, 401);
    assert.equal(res.body.error.code, "UNAUTHORIZED");
  });
});

describe("long polls re-check their credential before returning items", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("an agent's poll opened before DELETE /v1/sdk/keys/:id gets 401, not the event emitted after", async () => {
    const k = await t.mintKey("alice");
    const poll = t.agent(k.key, "GET", "/v1/agent/inbox?wait=10");
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${k.id}`)).status, 200);
    const emitted = await t.sdk("POST", "/v1/events", {
      body: { eventId: "after-revoke", type: "t", agentId: k.agentId, payload: { secret: "for the agent only" } },
    });
    assert.equal(emitted.status, 202);
    const res = await poll;
    assert.equal(res.status, 401);
    assert.equal(JSON.stringify(res.body).includes("for the agent only"), false);
  });

  test("a tooling poll opened before project rotate-secret gets 401, not the event emitted after", async () => {
    const p = await t.newProject("rotate inbox");
    const poll = t.sdk("GET", "/v1/agents/bob/inbox?wait=10", { as: p });
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    const secret = (await rotateSdkSecret(t.storage, p.id))!;
    const emitted = await t.sdk("POST", "/v1/events", {
      as: { id: p.id, secret },
      body: { eventId: "after-rotate", type: "t", agentId: "bob", payload: {} },
    });
    assert.equal(emitted.status, 202);
    const res = await poll;
    assert.equal(res.status, 401);
  });

  test("a poll whose credential still holds gets the event that arrives while it waits", async () => {
    const k = await t.mintKey("carol");
    const poll = t.agent(k.key, "GET", "/v1/agent/inbox?wait=10");
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    await t.sdk("POST", "/v1/events", { body: { eventId: "kept", type: "t", agentId: k.agentId, payload: {} } });
    const res = await poll;
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.items.map((i: { eventId: string }) => i.eventId), ["kept"]);
  });
});
