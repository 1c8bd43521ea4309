import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

describe("GET /v1/agent/inbox and POST /v1/agent/ack", () => {
  let t: TestCloud;
  let key: string;
  before(async () => {
    t = await startTestCloud();
    key = (await t.mintKey("alice")).key;
    for (let i = 1; i <= 5; i++) await t.sdk("POST", "/v1/events", { body: event(`a-${i}`, "alice") });
  });
  after(() => t.close());
  const poll = async (query = "", k = key) => (await t.agent(k, "GET", `/v1/agent/inbox${query}`)).body;

  test("delivers the agent's items ascending with every field, and the next cursor", async () => {
    const body = await poll("?cursor=0&limit=2");
    assert.deepEqual(body.items.map((i: { eventId: string }) => i.eventId), ["a-1", "a-2"]);
    const [item] = body.items;
    assert.deepEqual(Object.keys(item).sort(), [
      "agentId",
      "createdAt",
      "deliveries",
      "eventId",
      "inboxId",
      "payload",
      "type",
    ]);
    assert.equal(item.agentId, "alice");
    assert.equal(item.type, "order.paid");
    assert.deepEqual(item.payload, { n: "a-1" });
    assert.match(item.createdAt, /\.\d{3}Z$/);
    assert.equal(body.nextCursor, body.items[1].inboxId);
    const next = await poll(`?cursor=${body.nextCursor}&limit=2`);
    assert.deepEqual(next.items.map((i: { eventId: string }) => i.eventId), ["a-3", "a-4"]);
  });

  test("answers the given cursor when nothing is newer", async () => {
    assert.deepEqual(await poll("?cursor=999999"), { items: [], nextCursor: 999999 });
  });

  test("redelivers everything unacknowledged from cursor 0, counting deliveries", async () => {
    const body = await poll();
    assert.deepEqual(body.items.map((i: { eventId: string }) => i.eventId), ["a-1", "a-2", "a-3", "a-4", "a-5"]);
    assert.ok(body.items[0].deliveries >= 2);
  });

  test("acknowledges items once: repeats and others' ids are ignored", async () => {
    const items = (await poll()).items;
    const ids = [items[0].inboxId, items[1].inboxId];
    const first = await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [...ids, ids[0]] } });
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, { ok: true, acknowledged: 2 });
    const again = await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [...ids, 987654] } });
    assert.deepEqual(again.body, { ok: true, acknowledged: 0 });
    assert.deepEqual((await poll()).items.map((i: { eventId: string }) => i.eventId), ["a-3", "a-4", "a-5"]);
  });

  test("uses a limit of 50 by default and clamps it to 200", async () => {
    const { key: bulkKey } = await t.mintKey("bulk");
    const events = Array.from({ length: 250 }, (_, i) => event(`bulk-${i}`, "bulk"));
    await t.sdk("POST", "/v1/events/batch", { body: { events } });
    assert.equal((await poll("", bulkKey)).items.length, 50);
    assert.equal((await poll("?limit=5000", bulkKey)).items.length, 200);
  });

  test("refuses bad query values and bad ack bodies with 400 VALIDATION_ERROR", async () => {
    for (
      const [query, path] of [["?cursor=-1", "cursor"], ["?limit=0", "limit"], ["?wait=21", "wait"], [
        "?wait=x",
        "wait",
      ]]
    ) {
      const res = await t.agent(key, "GET", `/v1/agent/inbox${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.details.issues[0].path, path);
    }
    const many = Array.from({ length: 501 }, (_, i) => i + 1);
    for (
      const body of [{}, { inboxIds: [] }, { inboxIds: many }, { inboxIds: [1.5] }, { inboxIds: ["1"] }, {
        inboxIds: [0],
      }]
    ) {
      const res = await t.agent(key, "POST", "/v1/agent/ack", { body });
      assert.equal(res.status, 400, JSON.stringify(body).slice(0, 40));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });

  test("shows an agent only its own agentId's items", async () => {
    const { key: bobKey } = await t.mintKey("bob");
    await t.sdk("POST", "/v1/events", { body: event("b-1", "bob") });
    const bob = await poll("", bobKey);
    assert.deepEqual(bob.items.map((i: { eventId: string }) => i.eventId), ["b-1"]);
    const alice = await poll();
    assert.ok(alice.items.every((i: { agentId: string }) => i.agentId === "alice"));
    const res = await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [bob.items[0].inboxId] } });
    assert.equal(res.body.acknowledged, 0);
    assert.equal((await poll("", bobKey)).items.length, 1);
  });

  test("shows an agent only its own project's items, even for the same agentId", async () => {
    const other = await t.newProject();
    await t.sdk("POST", "/v1/events", { body: event("o-1", "alice"), as: other });
    const { key: otherAlice } = await t.mintKey("alice", {}, other);
    assert.deepEqual((await poll("", otherAlice)).items.map((i: { eventId: string }) => i.eventId), ["o-1"]);
    assert.ok((await poll()).items.every((i: { eventId: string }) => i.eventId !== "o-1"));
  });
});

describe("GET /v1/agents/:agentId/inbox and POST /v1/agents/:agentId/ack (tooling)", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud();
    await t.sdk("POST", "/v1/events/batch", { body: { events: [event("t-1", "tool"), event("t-2", "tool")] } });
  });
  after(() => t.close());

  test("polls and acknowledges any agent's inbox of the project with the same shapes", async () => {
    const res = await t.sdk("GET", "/v1/agents/tool/inbox?limit=1");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.items.map((i: { eventId: string }) => i.eventId), ["t-1"]);
    assert.equal(res.body.nextCursor, res.body.items[0].inboxId);
    const ack = await t.sdk("POST", "/v1/agents/tool/ack", { body: { inboxIds: [res.body.items[0].inboxId] } });
    assert.deepEqual(ack.body, { ok: true, acknowledged: 1 });
    const rest = await t.sdk("GET", "/v1/agents/tool/inbox");
    assert.deepEqual(rest.body.items.map((i: { eventId: string }) => i.eventId), ["t-2"]);
  });

  test("decodes the agentId from the path", async () => {
    await t.sdk("POST", "/v1/events", { body: event("t-enc", "user@example.com") });
    const res = await t.sdk("GET", `/v1/agents/${encodeURIComponent("user@example.com")}/inbox`);
    assert.deepEqual(res.body.items.map((i: { eventId: string }) => i.eventId), ["t-enc"]);
  });

  test("keeps other projects out", async () => {
    const other = await t.newProject();
    assert.deepEqual((await t.sdk("GET", "/v1/agents/tool/inbox", { as: other })).body.items, []);
    const ack = await t.sdk("POST", "/v1/agents/tool/ack", { body: { inboxIds: [2] }, as: other });
    assert.equal(ack.body.acknowledged, 0);
  });

  test("requires SDK auth, refusing an agent key", async () => {
    const { key } = await t.mintKey("tool");
    assert.equal((await t.agent(key, "GET", "/v1/agents/tool/inbox")).status, 401);
    assert.equal((await t.raw("POST", "/v1/agents/tool/ack", { body: { inboxIds: [1] } })).status, 401);
  });
});
