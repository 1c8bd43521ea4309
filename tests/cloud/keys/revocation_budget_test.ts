// A revocation never waits behind the project's write budget: with the budget spent by emits, a tooling
// revoke and a hybrid app's mirrored revoke still answer 200 and the key is refused at once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mintAgentKey } from "../../../core/contract/mod.ts";
import { event, startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";

/** Emits until the project's write budget answers 429 (bounded). */
async function spendBudget(t: TestCloud): Promise<void> {
  for (let i = 0; i < 10; i++) {
    const res = await t.sdk("POST", "/v1/events", { body: event(`flood-${crypto.randomUUID()}`, "bob") });
    if (res.status === 429) return;
  }
  assert.fail("the budget was never spent");
}

describe("revocations and the project's write budget", () => {
  test("a tooling DELETE answers 200 with the budget spent, and the key's next inbox read is 401", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 3, windowMs: 60_000 } } });
    try {
      const key = await t.mintKey("alice");
      assert.equal((await t.agent(key.key, "GET", "/v1/agent/inbox")).status, 200);
      await spendBudget(t);
      const revoked = await t.sdk("DELETE", `/v1/sdk/keys/${key.id}`);
      assert.equal(revoked.status, 200);
      assert.equal(revoked.body.id, key.id);
      assert.equal((await t.agent(key.key, "GET", "/v1/agent/inbox")).status, 401);
      const feed = await t.sdk("GET", "/v1/sdk/keys/revocations");
      assert.deepEqual(feed.body.revocations.map((r: { keyId: string }) => r.keyId), [key.id]);
    } finally {
      await t.close();
    }
  });

  test("a hybrid app's mirrored revoke answers 200 with the budget spent; a mirror that does not revoke is refused", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 3, windowMs: 60_000 } } });
    try {
      const { key, record } = await mintAgentKey("carol", { name: "m", scopes: [], agentId: "carol" });
      const mirror = { ...record, lastUsedAt: undefined, id: undefined, revokedAt: null };
      assert.equal((await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { body: mirror })).status, 200);
      assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200);
      await spendBudget(t);
      const other = await mintAgentKey("dave", { name: "m", scopes: [], agentId: "dave" });
      const active = { ...other.record, lastUsedAt: undefined, id: undefined, revokedAt: null };
      const refused = await t.sdk("PUT", `/v1/sdk/keys/${other.record.id}`, { body: active });
      assert.equal(refused.status, 429, "a mirror that does not revoke still draws from the budget");
      const revoked = await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, {
        body: { ...mirror, revokedAt: new Date().toISOString() },
      });
      assert.equal(revoked.status, 200);
      assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 401);
    } finally {
      await t.close();
    }
  });

  test("violation reports keep their own budget: with emits spent, the cloud's auto-revoke still revokes the key", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 3, windowMs: 60_000 } } });
    try {
      const policy = { autoRevoke: { threshold: 2, windowMinutes: 10, kinds: ["FORBIDDEN_SCOPE"] } };
      assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { body: policy })).status, 200);
      const key = await t.mintKey("erin");
      await spendBudget(t);
      for (let i = 0; i < 2; i++) {
        const res = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation({ apiKeyId: key.id }) } });
        assert.equal(res.status, 200);
      }
      assert.equal((await t.agent(key.key, "GET", "/v1/agent/inbox")).status, 401);
      const feed = await t.sdk("GET", "/v1/sdk/keys/revocations");
      assert.deepEqual(feed.body.revocations.map((r: { reason: string }) => r.reason), ["auto"]);
    } finally {
      await t.close();
    }
  });
});
