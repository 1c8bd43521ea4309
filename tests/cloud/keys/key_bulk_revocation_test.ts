// Revoking many keys at once: every key of a user (DELETE /v1/sdk/keys?userId=, the dashboard, the command
// line) and the keys an operator selected, each key with its feed row and audit entry, all in one transaction.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { createKeyService, revocationAudit, REVOKE_ALL_ACTION } from "../../../cloud/keys/mod.ts";
import { createInboxWaiters } from "../../../cloud/feed/mod.ts";

const by = { actor: "ops@example.com", sourceAddress: "192.0.2.1" };

describe("revoking many keys", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud();
  });
  after(() => t.close());

  const feed = async (projectId = t.project.id) =>
    (await t.storage.keys.listRevocations(projectId, 0, 500)).map((r) => [r.keyId, r.reason]);
  const audit = async (action: string, target?: string) =>
    (await t.storage.audit.listAudit({ projectId: t.project.id, action, keyId: target, limit: 500, offset: 0 }))
      .entries;
  const inbox = async (key: string) => (await t.agent(key, "GET", "/v1/agent/inbox")).status;

  test("DELETE /v1/sdk/keys?userId= revokes only that user's active keys of this project, once", async () => {
    const other = await t.newProject("Other");
    const a1 = await t.mintKey("alice", { name: "a1" });
    const a2 = await t.mintKey("alice", { name: "a2" });
    const a3 = await t.mintKey("alice", { name: "a3" });
    const bob = await t.mintKey("bob");
    const alicePrefix = await t.mintKey("alice2");
    const elsewhere = await t.mintKey("alice", {}, other);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${a3.id}`)).status, 200);
    const before = (await feed()).length;

    const res = await t.sdk("DELETE", "/v1/sdk/keys?userId=alice");
    assert.deepEqual([res.status, res.body], [200, { ok: true, revoked: 2 }]);
    for (const k of [a1, a2, a3]) assert.equal(await inbox(k.key), 401);
    for (const k of [bob, alicePrefix, elsewhere]) assert.equal(await inbox(k.key), 200, "other keys keep working");

    const added = (await feed()).slice(before);
    assert.deepEqual(added.sort(), [[a1.id, "tooling"], [a2.id, "tooling"]].sort(), "one feed row per key");
    for (const k of [a1, a2]) {
      const entries = await audit("key.revoke", k.id);
      assert.deepEqual(entries.map((e) => [e.actor, e.detail.reason]), [["sdk", "tooling"]], "one entry per key");
    }
    const [action] = await audit(REVOKE_ALL_ACTION, "alice");
    assert.deepEqual([action.actor, action.detail], ["sdk", { reason: "tooling", revoked: 2 }]);
    assert.deepEqual(await feed(other.id), [], "no feed row in another project");

    const again = await t.sdk("DELETE", "/v1/sdk/keys?userId=alice");
    assert.deepEqual(again.body, { ok: true, revoked: 0 });
    assert.equal((await feed()).length, before + 2, "a repeat adds no feed row");
  });

  test("DELETE /v1/sdk/keys needs a userId", async () => {
    const res = await t.sdk("DELETE", "/v1/sdk/keys");
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "VALIDATION_ERROR");
  });

  test("the keys service revokes the selected keys: active ones of this project only", async () => {
    const other = await t.newProject("Third");
    const [k1, k2, done] = [await t.mintKey("carol"), await t.mintKey("dave"), await t.mintKey("erin")];
    const foreign = await t.mintKey("carol", {}, other);
    await t.sdk("DELETE", `/v1/sdk/keys/${done.id}`);
    const keys = createKeyService(t.storage, createInboxWaiters());
    const revoked = await keys.revokeSelected(
      t.project.id,
      [k1.id, k2.id, k2.id, done.id, foreign.id, "no-such-key"],
      "dashboard",
      by,
    );
    assert.deepEqual(revoked, [k1.id, k2.id].sort());
    assert.equal(await inbox(foreign.key), 200);
    for (const k of [k1, k2]) {
      assert.equal(await inbox(k.key), 401);
      assert.deepEqual((await audit("key.revoke", k.id)).map((e) => [e.actor, e.detail.reason]), [[
        by.actor,
        "dashboard",
      ]]);
    }
    assert.equal((await audit("key.revoke", done.id)).length, 1, "the earlier revoke's entry only");
  });

  test("one transaction: when an audit entry cannot be written, no key is revoked and no feed row is added", async () => {
    const [k1, k2] = [await t.mintKey("frank"), await t.mintKey("frank")];
    const before = (await feed()).length;
    let written = 0;
    const failing = (keyId: string) => {
      if (++written === 2) throw new Error("the disk is full");
      return revocationAudit(t.project.id, keyId, "dashboard", by, Date.now());
    };
    await assert.rejects(
      t.storage.keys.revokeUserKeys(t.project.id, "frank", new Date().toISOString(), "dashboard", failing, () => {
        throw new Error("never reached");
      }),
      /the disk is full/,
    );
    assert.equal((await feed()).length, before);
    for (const k of [k1, k2]) assert.equal(await inbox(k.key), 200);
    assert.equal((await audit("key.revoke", k1.id)).length + (await audit("key.revoke", k2.id)).length, 0);
  });
});
