// Issue 13, finding 12: key ids and hashes are unique per project, so the hybrid
// mirror answers and stores a project's record the same whatever other projects
// hold. Project B mirroring a key id or a hash that project A holds sees, in its
// answers, its list and its DELETE, exactly what it sees for a fresh record, so
// B cannot learn that they exist; A's key keeps authenticating as A's.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { hashSecret } from "../../core/contract/mod.ts";
import { event, type Project, startTestCloud, type TestCloud, violation } from "../fixtures/test_cloud.ts";

function record(hash: string, userId: string): Record<string, unknown> {
  return {
    userId,
    name: "k",
    scopes: [],
    agentId: "default",
    hash,
    start: "svc_live_abc",
    createdAt: "2025-01-01T00:00:00.000Z",
    revokedAt: null,
  };
}

function randomHash(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(32)), (n) => n.toString(16).padStart(2, "0")).join("");
}

describe("the hybrid mirror across projects", () => {
  let t: TestCloud;
  let b: Project;
  let keyA: { id: string; key: string };
  let hashA: string;
  before(async () => {
    t = await startTestCloud();
    b = await t.newProject("b");
    keyA = await t.mintKey("u1");
    hashA = await hashSecret(keyA.key);
  });
  after(() => t.close());

  /** What B sees of one record: the mirror's answer, its list, the DELETE's answer, its list after (ids masked). */
  async function seenByB(id: string, hash: string, userId: string): Promise<unknown[]> {
    const mask = (value: unknown) =>
      JSON.parse(JSON.stringify(value).replaceAll(id, "<id>").replace(/"revokedAt":"[^"]+"/g, '"revokedAt":"<t>"'));
    const list = async () => mask((await t.sdk("GET", `/v1/sdk/keys?userId=${userId}`, { as: b })).body);
    const mirrored = await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: record(hash, userId), as: b });
    const listed = await list();
    const deleted = await t.sdk("DELETE", `/v1/sdk/keys/${id}`, { as: b });
    return [mirrored.status, mirrored.body, listed, deleted.status, mask(deleted.body), await list()];
  }

  async function authenticatesAsA(): Promise<void> {
    const eventId = crypto.randomUUID();
    assert.equal((await t.sdk("POST", "/v1/events", { body: event(eventId, "u1") })).status, 202);
    const inbox = await t.agent(keyA.key, "GET", "/v1/agent/inbox");
    assert.equal(inbox.status, 200);
    assert.ok(inbox.body.items.some((i: { eventId: string }) => i.eventId === eventId), "A's key reads A's inbox");
    const verified = await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key: keyA.key } });
    assert.equal(verified.body.key?.id, keyA.id);
    assert.deepEqual((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key: keyA.key }, as: b })).body, {
      valid: false,
    });
  }

  test("B sees another project's key id as it sees a fresh one: stored, listed, deleted", async () => {
    const fresh = await seenByB(crypto.randomUUID(), randomHash(), "fresh-id");
    assert.equal(fresh[0], 200);
    assert.equal((fresh[2] as { keys: unknown[] }).keys.length, 1, "a fresh record is listed");
    assert.deepEqual(await seenByB(keyA.id, randomHash(), "taken-id"), fresh);
    await authenticatesAsA();
  });

  test("B sees another project's hash as it sees a fresh one, and the key keeps authenticating as A's", async () => {
    const fresh = await seenByB(crypto.randomUUID(), randomHash(), "fresh-hash");
    assert.deepEqual(await seenByB(crypto.randomUUID(), hashA, "taken-hash"), fresh);
    await authenticatesAsA();
    // An active copy in a third project does not take the key over either.
    const c = await t.newProject("c");
    const copy = `/v1/sdk/keys/${crypto.randomUUID()}`;
    assert.equal((await t.sdk("PUT", copy, { body: record(hashA, "copier"), as: c })).status, 200);
    await authenticatesAsA();
  });

  test("A's key revoked in A stays refused whatever copies B holds", async () => {
    const minted = await t.mintKey("u2");
    const hash = await hashSecret(minted.key);
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${minted.id}`, { body: record(hash, "u2"), as: b })).status, 200);
    assert.equal((await t.agent(minted.key, "GET", "/v1/agent/inbox")).status, 200);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${minted.id}`)).status, 200);
    assert.equal((await t.agent(minted.key, "GET", "/v1/agent/inbox")).status, 401);
  });

  test("leaves the other project's record as it was", async () => {
    const [key] = (await t.sdk("GET", "/v1/sdk/keys?userId=u1")).body.keys;
    assert.equal(key.id, keyA.id);
    assert.equal(key.revokedAt, null);
  });

  test("still refuses a project's own record changing its hash, or a hash another of its records has", async () => {
    const id = crypto.randomUUID();
    const hash = randomHash();
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: record(hash, "own"), as: b })).status, 200);
    const changed = await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: record(randomHash(), "own"), as: b });
    assert.equal(changed.status, 400);
    assert.equal(changed.body.error.details.issues[0].path, "hash");
    const twice = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, { body: record(hash, "own"), as: b });
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.details.issues[0].path, "hash");
  });
});

describe("a key id two projects hold", () => {
  let t: TestCloud;
  before(async () =>
    t = await startTestCloud({ rateLimit: { perProject: false, perAgentKey: { limit: 3, windowMs: 60_000 } } })
  );
  after(() => t.close());

  test("has one rate limit per project: B's key with A's id cannot spend A's key's budget", async () => {
    const keyA = await t.mintKey("u1");
    const b = await t.newProject("b");
    const keyB = `svc_live_${crypto.randomUUID().replaceAll("-", "")}`;
    const mirrored = await t.sdk("PUT", `/v1/sdk/keys/${keyA.id}`, {
      body: record(await hashSecret(keyB), "u2"),
      as: b,
    });
    assert.equal(mirrored.status, 200);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await t.agent(keyB, "GET", "/v1/agent/inbox")).status);
    assert.deepEqual(statuses, [200, 200, 200, 429], "B's key has its own budget");
    assert.equal((await t.agent(keyA.key, "GET", "/v1/agent/inbox")).status, 200, "A's key keeps its own");
  });

  test("is auto-revoked only in the project whose violations crossed the threshold", async () => {
    const keyA = await t.mintKey("u3");
    const b = await t.newProject("auto-revoking b");
    const policy = { autoRevoke: { threshold: 2, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"] } };
    assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { as: b, body: policy })).status, 200);
    const copy = record(await hashSecret(`svc_live_${crypto.randomUUID().replaceAll("-", "")}`), "u4");
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${keyA.id}`, { body: copy, as: b })).status, 200);
    for (let i = 0; i < 2; i++) {
      const body = { violation: violation({ apiKeyId: keyA.id }) };
      assert.equal((await t.sdk("POST", "/v1/sdk/violations", { body, as: b })).status, 200);
    }
    const [revokedInB] = (await t.sdk("GET", "/v1/sdk/keys?userId=u4", { as: b })).body.keys;
    assert.notEqual(revokedInB.revokedAt, null, "B's key was auto-revoked");
    assert.equal((await t.agent(keyA.key, "GET", "/v1/agent/inbox")).status, 200, "A's key with that id was not");
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/keys/revocations")).body.revocations, []);
  });
});
