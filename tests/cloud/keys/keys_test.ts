import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { hashSecret } from "../../../core/contract/mod.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

describe("/v1/sdk/keys", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("POST mints a key with 201, shown once, for the user's own inbox by default", async () => {
    const res = await t.sdk("POST", "/v1/sdk/keys", {
      body: { userId: "u1", name: "Laptop agent", scopes: ["a", "a", "b"] },
    });
    assert.equal(res.status, 201);
    assert.deepEqual(Object.keys(res.body).sort(), ["agentId", "createdAt", "id", "key", "name", "scopes"]);
    assert.match(res.body.key, /^svc_live_[0-9A-Za-z]{32,}$/);
    assert.match(res.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(res.body.agentId, "u1");
    assert.deepEqual(res.body.scopes, ["a", "b"]);
    const list = await t.sdk("GET", "/v1/sdk/keys?userId=u1");
    assert.equal(JSON.stringify(list.body).includes(res.body.key), false);
  });

  test("POST follows the agentId rules: own agt_ ids, another user's refused, default allowed", async () => {
    const agentId = `agt_${crypto.randomUUID()}`;
    assert.equal((await t.mintKey("u2", { agentId })).agentId, agentId);
    assert.equal((await t.mintKey("u2", { agentId })).agentId, agentId);
    const taken = await t.sdk("POST", "/v1/sdk/keys", { body: { userId: "u3", name: "k", scopes: [], agentId } });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.error.details.issues[0].path, "agentId");
    const other = await t.sdk("POST", "/v1/sdk/keys", { body: { userId: "u3", name: "k", scopes: [], agentId: "u2" } });
    assert.equal(other.status, 400);
    assert.equal((await t.mintKey("u3", { agentId: "default" })).agentId, "default");
  });

  test("POST refuses a malformed body with 400 VALIDATION_ERROR", async () => {
    for (
      const [body, path] of [
        [{ name: "k", scopes: [] }, "userId"],
        [{ userId: "u", name: "", scopes: [] }, "name"],
        [{ userId: "u", name: "x".repeat(101), scopes: [] }, "name"],
        [{ userId: "u", name: "k", scopes: "a" }, "scopes"],
      ] as const
    ) {
      const res = await t.sdk("POST", "/v1/sdk/keys", { body });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.details.issues[0].path, path);
    }
  });

  test("GET lists one user's keys without hash, owner or plaintext", async () => {
    const minted = await t.mintKey("lister");
    const res = await t.sdk("GET", "/v1/sdk/keys?userId=lister");
    assert.equal(res.status, 200);
    assert.equal(res.body.keys.length, 1);
    const [k] = res.body.keys;
    assert.deepEqual(Object.keys(k).sort(), [
      "agentId",
      "createdAt",
      "expiresAt",
      "id",
      "lastUsedAt",
      "name",
      "revokedAt",
      "revokesAt",
      "scopes",
      "start",
    ]);
    assert.equal(k.id, minted.id);
    assert.equal(k.start, minted.key.slice(0, 12));
    assert.equal(k.expiresAt, null);
    assert.equal(k.revokesAt, null);
    assert.equal((await t.sdk("GET", "/v1/sdk/keys")).status, 400);
    const other = await t.newProject();
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/keys?userId=lister", { as: other })).body, { keys: [] });
  });

  test("DELETE revokes a key once, idempotently, and 404s another project's or an unknown id", async () => {
    const { id } = await t.mintKey("revoker");
    const res = await t.sdk("DELETE", `/v1/sdk/keys/${id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.ok, true);
    assert.equal(res.body.id, id);
    assert.match(res.body.revokedAt, /\.\d{3}Z$/);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${id}`)).body.revokedAt, res.body.revokedAt);
    const other = await t.newProject();
    const foreign = await t.sdk("DELETE", `/v1/sdk/keys/${id}`, { as: other });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, "NOT_FOUND");
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${crypto.randomUUID()}`)).status, 404);
    assert.equal((await t.sdk("DELETE", "/v1/sdk/keys/not-a-uuid")).status, 404);
  });

  test("verify answers valid: true with the key's owner and scopes", async () => {
    const { key, id } = await t.mintKey("verifier", { scopes: ["s"] });
    const res = await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      valid: true,
      key: { id, userId: "verifier", name: "k", scopes: ["s"], agentId: "verifier" },
    });
  });

  test("verify answers only valid: false for unknown, malformed, revoked or foreign keys", async () => {
    const { key, id } = await t.mintKey("verifier2");
    const other = await t.newProject();
    assert.deepEqual((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key }, as: other })).body, { valid: false });
    for (const bad of ["", "nope", `svc_live_${"z".repeat(40)}`, t.project.secret]) {
      const res = await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key: bad } });
      assert.deepEqual(res.body, { valid: false });
    }
    await t.sdk("DELETE", `/v1/sdk/keys/${id}`);
    assert.deepEqual((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key } })).body, { valid: false });
    assert.equal((await t.sdk("POST", "/v1/sdk/keys/verify", { body: {} })).status, 400);
  });

  test("every key route requires SDK auth", async () => {
    const { key, id } = await t.mintKey("guarded");
    for (
      const [method, path] of [
        ["POST", "/v1/sdk/keys"],
        ["GET", "/v1/sdk/keys?userId=guarded"],
        ["DELETE", `/v1/sdk/keys/${id}`],
        ["PUT", `/v1/sdk/keys/${id}`],
        ["POST", "/v1/sdk/keys/verify"],
      ]
    ) {
      const body = method === "GET" || method === "DELETE" ? undefined : {};
      assert.equal((await t.agent(key, method, path, { body })).status, 401, `${method} ${path}`);
    }
  });
});

describe("PUT /v1/sdk/keys/:id (hybrid mirror)", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  const plaintext = `svc_live_${"M".repeat(40)}`;
  const id = crypto.randomUUID();
  const record = async (extra: Record<string, unknown> = {}) => ({
    userId: "hybrid-user",
    name: "Mirrored",
    scopes: ["a"],
    agentId: "hybrid-user",
    hash: await hashSecret(plaintext),
    start: plaintext.slice(0, 12),
    createdAt: "2025-01-01T00:00:00.000Z",
    revokedAt: null,
    ...extra,
  });

  test("stores the record, idempotently, so the agent can read its inbox", async () => {
    const body = await record();
    assert.deepEqual((await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body })).body, { ok: true });
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body })).status, 200);
    assert.equal((await t.agent(plaintext, "GET", "/v1/agent/inbox")).status, 200);
    const listed = (await t.sdk("GET", "/v1/sdk/keys?userId=hybrid-user")).body.keys;
    assert.equal(listed.length, 1);
    assert.equal(listed[0].start, plaintext.slice(0, 12));
  });

  test("revokes on a mirrored revocation and never reactivates", async () => {
    await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: await record({ revokedAt: "2025-02-01T00:00:00.000Z" }) });
    assert.equal((await t.agent(plaintext, "GET", "/v1/agent/inbox")).status, 401);
    assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${id}`, { body: await record() })).status, 200);
    assert.equal((await t.agent(plaintext, "GET", "/v1/agent/inbox")).status, 401);
    const [k] = (await t.sdk("GET", "/v1/sdk/keys?userId=hybrid-user")).body.keys;
    assert.equal(k.revokedAt, "2025-02-01T00:00:00.000Z");
  });

  test("stores another project's key id as a fresh record of this project, and 400 for a hash of its own other key", async () => {
    const other = await t.newProject();
    const foreign = await t.sdk("PUT", `/v1/sdk/keys/${id}`, {
      body: await record({ hash: "0".repeat(64) }),
      as: other,
    });
    assert.deepEqual(foreign.body, { ok: true }, "ids are unique per project");
    const [stored] = (await t.sdk("GET", "/v1/sdk/keys?userId=hybrid-user", { as: other })).body.keys;
    assert.equal(stored.id, id);
    assert.equal(stored.revokedAt, null, "the other project's record is its own");
    const clash = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, { body: await record() });
    assert.equal(clash.status, 400);
    assert.equal(clash.body.error.details.issues[0].path, "hash");
  });

  test("refuses a malformed record with 400 VALIDATION_ERROR", async () => {
    for (
      const [extra, path] of [
        [{ hash: "abc" }, "hash"],
        [{ start: "nope" }, "start"],
        [{ createdAt: "soon" }, "createdAt"],
        [{ agentId: "" }, "agentId"],
        [{ agentId: "someone-else" }, "agentId"],
      ] as const
    ) {
      const res = await t.sdk("PUT", `/v1/sdk/keys/${crypto.randomUUID()}`, { body: await record(extra) });
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.details.issues[0].path, path);
    }
  });
});
