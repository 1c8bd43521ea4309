import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

describe("POST /v1/events", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("queues a new event with 202 and its inboxId", async () => {
    const res = await t.sdk("POST", "/v1/events", { body: event("e-new", "agent-1") });
    assert.equal(res.status, 202);
    assert.deepEqual(Object.keys(res.body).sort(), ["duplicate", "eventId", "inboxId", "ok"]);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.eventId, "e-new");
    assert.equal(res.body.duplicate, false);
    assert.ok(Number.isInteger(res.body.inboxId) && res.body.inboxId > 0);
  });

  test("answers a repeated eventId with 200 duplicate: true and queues nothing", async () => {
    const first = await t.sdk("POST", "/v1/events", { body: event("e-dup", "agent-dup") });
    const again = await t.sdk("POST", "/v1/events", { body: event("e-dup", "agent-dup", { payload: { other: 1 } }) });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { ok: true, eventId: "e-dup", inboxId: first.body.inboxId, duplicate: true });
    const { key } = await t.mintKey("agent-dup");
    const items = (await t.agent(key, "GET", "/v1/agent/inbox")).body.items;
    assert.equal(items.length, 1);
    assert.deepEqual(items[0].payload, { n: "e-dup" });
  });

  test("answers concurrent copies of one eventId with one new event and duplicates of it", async () => {
    const answers = await Promise.all(
      Array.from(
        { length: 6 },
        (_, i) => t.sdk("POST", "/v1/events", { body: event("e-same", "agent-same", { payload: { copy: i } }) }),
      ),
    );
    const fresh = answers.filter((res) => res.status === 202);
    assert.equal(fresh.length, 1);
    const { inboxId } = fresh[0].body;
    for (const res of answers) {
      assert.deepEqual(res.body, { ok: true, eventId: "e-same", inboxId, duplicate: res.status === 200 });
    }
    const { key } = await t.mintKey("agent-same");
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).body.items.length, 1);
  });

  test("a duplicate written in one group after a new event answers its own item's inboxId, not the new one's", async () => {
    const first = await t.sdk("POST", "/v1/events", { body: event("e-mixed-old", "agent-mixed") });
    assert.equal(first.status, 202);
    // Sent together, they share a group commit: the new event's INSERT, then the duplicate's ignored one.
    const [fresh, again] = await Promise.all([
      t.sdk("POST", "/v1/events", { body: event("e-mixed-new", "agent-mixed") }),
      t.sdk("POST", "/v1/events", { body: event("e-mixed-old", "agent-mixed") }),
    ]);
    assert.equal(fresh.status, 202);
    assert.ok(fresh.body.inboxId > first.body.inboxId);
    assert.deepEqual(again.body, { ok: true, eventId: "e-mixed-old", inboxId: first.body.inboxId, duplicate: true });
  });

  test("still deduplicates an eventId after its item was acknowledged", async () => {
    const { key } = await t.mintKey("agent-acked");
    const first = await t.sdk("POST", "/v1/events", { body: event("e-acked", "agent-acked") });
    await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [first.body.inboxId] } });
    const again = await t.sdk("POST", "/v1/events", { body: event("e-acked", "agent-acked") });
    assert.equal(again.status, 200);
    assert.equal(again.body.duplicate, true);
    assert.deepEqual((await t.agent(key, "GET", "/v1/agent/inbox")).body.items, []);
  });

  test("deduplicates per project: the same eventId in two projects is two events", async () => {
    const other = await t.newProject();
    const a = await t.sdk("POST", "/v1/events", { body: event("e-shared", "x") });
    const b = await t.sdk("POST", "/v1/events", { body: event("e-shared", "x"), as: other });
    assert.equal(a.status, 202);
    assert.equal(b.status, 202);
    assert.notEqual(a.body.inboxId, b.body.inboxId);
  });

  test("stores a batch in order and answers one result per event", async () => {
    await t.sdk("POST", "/v1/events", { body: event("b-0", "batch") });
    const res = await t.sdk("POST", "/v1/events/batch", {
      body: { events: [event("b-1", "batch"), event("b-0", "batch"), event("b-2", "batch"), event("b-1", "batch")] },
    });
    assert.equal(res.status, 202);
    assert.equal(res.body.ok, true);
    const results = res.body.results;
    assert.deepEqual(results.map((r: { duplicate: boolean }) => r.duplicate), [false, true, false, true]);
    assert.equal(results[3].inboxId, results[0].inboxId);
    assert.ok(results[2].inboxId > results[0].inboxId);
    assert.ok(results.every((r: { ok: boolean }) => r.ok));
  });

  test("answers 200 to a batch of duplicates only", async () => {
    const res = await t.sdk("POST", "/v1/events/batch", {
      body: { events: [event("b-1", "batch"), event("b-2", "batch")] },
    });
    assert.equal(res.status, 200);
  });

  test("accepts 500 events in one batch and refuses 501 or none", async () => {
    const events = Array.from({ length: 501 }, (_, i) => event(`big-${i}`, "bulk"));
    const tooMany = await t.sdk("POST", "/v1/events/batch", { body: { events } });
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.error.details.issues[0].path, "events");
    const empty = await t.sdk("POST", "/v1/events/batch", { body: { events: [] } });
    assert.equal(empty.status, 400);
    const ok = await t.sdk("POST", "/v1/events/batch", { body: { events: events.slice(0, 500) } });
    assert.equal(ok.status, 202);
    assert.equal(ok.body.results.length, 500);
  });

  test("refuses a whole batch, storing nothing, when one event is invalid", async () => {
    const res = await t.sdk("POST", "/v1/events/batch", {
      body: { events: [event("atomic-1", "atomic"), event("", "atomic")] },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.details.issues[0].path, "events.1.eventId");
    const again = await t.sdk("POST", "/v1/events", { body: event("atomic-1", "atomic") });
    assert.equal(again.body.duplicate, false);
  });

  test("answers the single route with one shape and refuses a batch body there, naming the batch route", async () => {
    const res = await t.sdk("POST", "/v1/events", { body: { events: [event("wrong-door", "batch")] } });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
    assert.equal(
      res.body.error.message,
      "POST /v1/events takes one event; send { events: [...] } to POST /v1/events/batch",
    );
    assert.deepEqual(res.body.error.details.issues, [{
      path: "events",
      message: "A batch goes to POST /v1/events/batch",
    }]);
    const single = await t.sdk("POST", "/v1/events/batch", { body: event("one-alone", "batch") });
    assert.equal(single.status, 400, "the batch route takes { events } only");
    assert.equal(single.body.error.details.issues[0].path, "events");
  });

  test("refuses a malformed event with 400 VALIDATION_ERROR", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [event("", "a"), "eventId"],
      [event("x".repeat(201), "a"), "eventId"],
      [event("ok", "a", { type: "" }), "type"],
      [event("ok", "a", { type: "t".repeat(201) }), "type"],
      [event("ok", "", {}), "agentId"],
      [event("ok", "a", { payload: [1, 2] }), "payload"],
      [event("ok", "a", { payload: "text" }), "payload"],
    ];
    for (const [body, path] of cases) {
      const res = await t.sdk("POST", "/v1/events", { body });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
      assert.equal(res.body.error.details.issues[0].path, path);
    }
  });

  test("accepts eventId and type of exactly 200 characters", async () => {
    const res = await t.sdk("POST", "/v1/events", { body: event("e".repeat(200), "a", { type: "t".repeat(200) }) });
    assert.equal(res.status, 202);
  });
});
