// OWASP API1: a valid credential reaches only its own objects. Users see and
// revoke only their keys, agents read and acknowledge only their inbox,
// projects see only their own data, and an agt_ id belongs to one user.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { hashSecret } from "../../core/contract/mod.ts";
import type { Svc } from "../../mod.ts";
import { asUser, errorOf, mint, notesSvc, run, SCOPES } from "../fixtures/notes_svc.ts";
import { event, type Project, startTestCloud, type TestCloud, violation } from "../fixtures/test_cloud.ts";

const AGT = "agt_6f1c2a4e-8b3d-4c5e-9f70-1a2b3c4d5e6f";

describe("on the app side", () => {
  let svc: Svc;
  before(() => svc = notesSvc());
  after(() => svc.close());

  test("a user lists only their own keys", async () => {
    const a = await mint(svc, "alice", ["notes:read"]);
    const b = await mint(svc, "bob", ["notes:read"]);
    const bobs = (await (await asUser(svc, "bob", "GET", "/svc/keys")).json()).keys.map((k: { id: string }) => k.id);
    assert.ok(bobs.includes(b.id));
    assert.ok(!bobs.includes(a.id));
  });

  test("a user cannot revoke another user's key: 404 exactly as for an unknown id, and the key keeps working", async () => {
    const a = await mint(svc, "alice", ["notes:read"]);
    const others = await asUser(svc, "bob", "DELETE", `/svc/keys/${a.id}`);
    const unknown = await asUser(svc, "bob", "DELETE", `/svc/keys/${crypto.randomUUID()}`);
    assert.equal(others.status, 404);
    assert.deepEqual(await errorOf(others), await errorOf(unknown));
    assert.equal((await run(svc, a.key, "notes.list")).status, 200);
  });

  test("an agt_ id claimed by one user cannot be claimed by another, even when both race for it", async () => {
    const agentId = `agt_${crypto.randomUUID()}`;
    const results = await Promise.all(
      ["alice", "bob", "carol", "dave"].map((user) =>
        asUser(svc, user, "POST", "/svc/keys", { name: "k", scopes: [], agentId })
      ),
    );
    const won = results.filter((r) => r.status === 201);
    assert.equal(won.length, 1, "exactly one user claims it");
    for (const r of results.filter((r) => r.status !== 201)) {
      assert.equal(r.status, 400);
      assert.equal((await errorOf(r)).code, "VALIDATION_ERROR");
    }
    const owner = (await won[0].json()).agentId;
    assert.equal(owner, agentId);
  });

  test("a user cannot take another user's id as an agentId", async () => {
    const res = await asUser(svc, "bob", "POST", "/svc/keys", { name: "k", scopes: [], agentId: "alice" });
    assert.equal(res.status, 400);
    const shared = await asUser(svc, "bob", "POST", "/svc/keys", { name: "k", scopes: [], agentId: "default" });
    assert.equal(shared.status, 400, "no shared inbox unless the config allows it");
  });

  test("a key runs intents as its owner, whoever else holds a key", async () => {
    const b = await mint(svc, "bob", [...SCOPES]);
    const res = await run(svc, b.key, "notes.create", { title: "mine" });
    assert.equal((await res.json()).result.owner, "bob");
  });
});

describe("on the cloud", () => {
  let t: TestCloud;
  let other: Project;
  before(async () => {
    t = await startTestCloud();
    other = await t.newProject("other");
  });
  after(() => t.close());

  test("an agent reads and acknowledges only its own inbox", async () => {
    const alice = await t.mintKey("alice");
    const bob = await t.mintKey("bob");
    const emitted = await t.sdk("POST", "/v1/events", { body: event("for-bob", "bob") });
    const inboxId = emitted.body.inboxId;
    assert.deepEqual((await t.agent(alice.key, "GET", "/v1/agent/inbox")).body.items, []);
    const ack = await t.agent(alice.key, "POST", "/v1/agent/ack", { body: { inboxIds: [inboxId] } });
    assert.deepEqual(ack.body, { ok: true, acknowledged: 0 });
    const bobs = (await t.agent(bob.key, "GET", "/v1/agent/inbox")).body.items;
    assert.deepEqual(bobs.map((i: { inboxId: number }) => i.inboxId), [inboxId], "still waiting for bob");
  });

  test("a project cannot see another project's manifest, violations, events, inboxes or keys", async () => {
    await t.sdk("PUT", "/v1/sdk/intents", {
      body: { intents: [{ name: "a", title: "A", requiredScopes: [], input: {}, output: {} }] },
    });
    await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation() } });
    const emitted = (await t.sdk("POST", "/v1/events", { body: event("secret-event", "carol") })).body;
    const key = await t.mintKey("carol");
    const as = other;

    assert.deepEqual((await t.sdk("GET", "/v1/sdk/intents", { as })).body, {
      intents: [],
      scopes: [],
      updatedAt: null,
    });
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/violations", { as })).body, { violations: [], total: 0 });
    assert.deepEqual((await t.sdk("GET", "/v1/agents/carol/inbox", { as })).body.items, []);
    const ack = await t.sdk("POST", "/v1/agents/carol/ack", { body: { inboxIds: [emitted.inboxId] }, as });
    assert.equal(ack.body.acknowledged, 0);
    // The same eventId is new in another project: no duplicate flag telling that it exists elsewhere.
    const again = await t.sdk("POST", "/v1/events", { body: event("secret-event", "carol"), as });
    assert.equal(again.body.duplicate, false);
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/keys?userId=carol", { as })).body.keys, []);
    assert.deepEqual((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key: key.key }, as })).body, {
      valid: false,
    });
    const revoke = await t.sdk("DELETE", `/v1/sdk/keys/${key.id}`, { as });
    assert.equal(revoke.status, 404);
    // An agent key of the other project sees its own project's carol inbox, not this one.
    const foreign = await t.mintKey("carol", {}, other);
    const seen = (await t.agent(foreign.key, "GET", "/v1/agent/inbox")).body.items;
    assert.ok(seen.every((i: { inboxId: number }) => i.inboxId !== emitted.inboxId));
    // Nothing of the first project changed.
    assert.equal((await t.agent(key.key, "GET", "/v1/agent/inbox")).body.items.length, 1);
  });

  test("a project cannot overwrite another project's key through the mirror route", async () => {
    const key = await t.mintKey("erin");
    const record = (await t.storage.keys.findKeyByHash(await hashSecret(key.key)))!.record;
    const res = await t.sdk("PUT", `/v1/sdk/keys/${key.id}`, {
      as: other,
      body: { ...mirrorBody(record.userId, record.agentId), hash: record.hash, revokedAt: new Date().toISOString() },
    });
    assert.deepEqual(res.body, { ok: true }, "answered as a fresh record: nothing tells that the id exists");
    assert.equal((await t.agent(key.key, "GET", "/v1/agent/inbox")).status, 200, "still active");
  });

  test("an agt_ id claimed by one user cannot be claimed by another, through minting or the mirror", async () => {
    await t.mintKey("frank", { agentId: AGT });
    const mintRes = await t.sdk("POST", "/v1/sdk/keys", {
      body: { userId: "grace", name: "k", scopes: [], agentId: AGT },
    });
    assert.equal(mintRes.status, 400);
    const mirrored = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, { body: mirrorBody("grace", AGT) });
    assert.equal(mirrored.status, 400, JSON.stringify(mirrored.body));
    assert.equal(mirrored.body.error.code, "VALIDATION_ERROR");
    const graces = (await t.sdk("GET", "/v1/sdk/keys?userId=grace")).body.keys;
    assert.deepEqual(graces, [], "no key of grace reads frank's inbox");
    // The owner may mirror keys for the id they hold.
    const own = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, { body: mirrorBody("frank", AGT) });
    assert.equal(own.status, 200);
  });
});

function mirrorBody(userId: string, agentId: string): Record<string, unknown> {
  return {
    userId,
    name: "mirrored",
    scopes: [],
    agentId,
    hash: crypto.randomUUID().replaceAll("-", "").padEnd(64, "a"),
    start: "svc_live_abc",
    createdAt: new Date().toISOString(),
    revokedAt: null,
  };
}
