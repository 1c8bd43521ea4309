// GET/PUT /v1/sdk/policy and the cloud's auto-revoke, on a real in-memory libSQL cloud.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Project, startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";

describe("GET and PUT /v1/sdk/policy", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  test("answers auto-revoke off and the default retention before any change", async () => {
    const res = await t.sdk("GET", "/v1/sdk/policy");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      autoRevoke: null,
      retentionDays: null,
      keyLifetime: null,
      inbox: { maxDeliveries: 5 },
    });
  });

  test("sets, keeps what is absent, and turns auto-revoke off with null", async () => {
    const p = await t.newProject("policy");
    const set = await t.sdk("PUT", "/v1/sdk/policy", {
      as: p,
      body: { autoRevoke: { threshold: 5, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"] }, retentionDays: 3 },
    });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body, {
      autoRevoke: { threshold: 5, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"] },
      retentionDays: 3,
      keyLifetime: null,
      inbox: { maxDeliveries: 5 },
    });
    const kept = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { autoRevoke: null } });
    assert.deepEqual(
      kept.body,
      { autoRevoke: null, retentionDays: 3, keyLifetime: null, inbox: { maxDeliveries: 5 } },
      "retention stays when absent",
    );
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/policy", { as: p })).body, kept.body);
    assert.equal((await t.storage.projects.projectPolicy(p.id)).retentionMs, 3 * 24 * 60 * 60 * 1000);
  });

  test("refuses a bad policy with 400 VALIDATION_ERROR and changes nothing", async () => {
    const p = await t.newProject("bad policy");
    for (
      const body of [
        { autoRevoke: { threshold: 0, windowMinutes: 10 } },
        { autoRevoke: { threshold: 3 } },
        { autoRevoke: { threshold: 3, windowMinutes: 10, severities: ["fatal"] } },
        { retentionDays: 0 },
        { keyLifetime: { maxDays: 0 } },
        { keyLifetime: { defaultDays: 30, maxDays: 7 } },
        { keyLifetime: { days: 7 } },
        { other: true },
        { inbox: { maxDeliveries: 0 } },
        { inbox: { maxDeliveries: 101 } },
        { inbox: {} },
      ]
    ) {
      const res = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/policy", { as: p })).body, {
      autoRevoke: null,
      retentionDays: null,
      keyLifetime: null,
      inbox: { maxDeliveries: 5 },
    });
  });

  test("sets the inbox's maxDeliveries (1 to 100), keeps it when absent, and audits it", async () => {
    const p = await t.newProject("inbox policy");
    const set = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { inbox: { maxDeliveries: 2 } } });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.inbox, { maxDeliveries: 2 });
    const kept = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { retentionDays: 2 } });
    assert.deepEqual(kept.body.inbox, { maxDeliveries: 2 }, "kept when absent");
    assert.deepEqual(
      (await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { inbox: { maxDeliveries: 100 } } })).body.inbox,
      {
        maxDeliveries: 100,
      },
    );
    const audit = await t.sdk("GET", "/v1/sdk/audit?action=policy.inbox", { as: p });
    assert.deepEqual(audit.body.entries.map((e: { detail: unknown }) => e.detail).reverse(), [
      { inbox: { maxDeliveries: 2 } },
      { inbox: { maxDeliveries: 100 } },
    ]);
  });

  test("sets the bounds of a key's lifetime, keeps them when absent, clears them with null, and audits each", async () => {
    const p = await t.newProject("lifetime policy");
    const set = await t.sdk("PUT", "/v1/sdk/policy", {
      as: p,
      body: { keyLifetime: { defaultDays: 30, maxDays: 90 } },
    });
    assert.equal(set.status, 200);
    assert.deepEqual(set.body.keyLifetime, { defaultDays: 30, maxDays: 90 });
    const kept = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { retentionDays: 2 } });
    assert.deepEqual(kept.body.keyLifetime, { defaultDays: 30, maxDays: 90 }, "kept when absent");
    const cleared = await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { keyLifetime: null } });
    assert.equal(cleared.body.keyLifetime, null);
    const audit = await t.sdk("GET", "/v1/sdk/audit?action=policy.key_lifetime", { as: p });
    assert.deepEqual(audit.body.entries.map((e: { detail: unknown }) => e.detail).reverse(), [
      { keyLifetime: { defaultDays: 30, maxDays: 90 } },
      { keyLifetime: null },
    ]);
  });
});

describe("auto-revoke at the cloud", () => {
  let t: TestCloud;
  before(async () => t = await startTestCloud());
  after(() => t.close());

  async function report(p: Project, keyId: string, extra: Record<string, unknown> = {}): Promise<void> {
    const res = await t.sdk("POST", "/v1/sdk/violations", {
      as: p,
      body: { violation: violation({ apiKeyId: keyId, ...extra }) },
    });
    assert.equal(res.status, 200);
  }
  const verify = async (p: Project, key: string) =>
    (await t.sdk("POST", "/v1/sdk/keys/verify", { as: p, body: { key } })).body.valid;

  test("is off by default: violations never revoke a key", async () => {
    const p = await t.newProject("off");
    const k = await t.mintKey("a", {}, p);
    for (let i = 0; i < 5; i++) await report(p, k.id, { severity: "severe" });
    assert.equal(await verify(p, k.key), true);
  });

  test("revokes a key at the threshold and not one violation before, with AUTO_REVOKED, a feed row and an audit entry", async () => {
    const p = await t.newProject("threshold");
    await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { autoRevoke: { threshold: 3, windowMinutes: 10 } } });
    const k = await t.mintKey("b", {}, p);
    await report(p, k.id);
    await report(p, k.id, { kind: "UNKNOWN_INTENT", severity: "info" }); // does not count by default
    await report(p, k.id);
    assert.equal(await verify(p, k.key), true, "two counted violations: still active");
    await report(p, k.id, { kind: "SOMETHING_SEVERE", severity: "severe" });
    assert.equal(await verify(p, k.key), false, "the third counted violation revokes");
    assert.equal((await t.agent(k.key, "GET", "/v1/agent/inbox")).status, 401);

    const auto = await t.sdk("GET", `/v1/sdk/violations?keyId=${k.id}&kind=AUTO_REVOKED`, { as: p });
    assert.equal(auto.body.total, 1);
    const [v] = auto.body.violations;
    assert.equal(v.severity, "severe");
    assert.equal(v.userId, "b");
    assert.equal(v.metadata.count, 3);
    assert.deepEqual(v.metadata.policy, {
      kinds: ["FORBIDDEN_SCOPE"],
      severities: ["severe"],
      threshold: 3,
      windowMinutes: 10,
    });
    const feed = await t.sdk("GET", "/v1/sdk/keys/revocations", { as: p });
    assert.deepEqual(feed.body.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]), [
      [k.id, "auto"],
    ]);
    const audit = await t.sdk("GET", "/v1/sdk/audit?action=key.revoke", { as: p });
    assert.equal(audit.body.total, 1);
    assert.equal(audit.body.entries[0].actor, "system");
    assert.equal(audit.body.entries[0].target, k.id);
    assert.deepEqual(audit.body.entries[0].detail, { reason: "auto", count: 3, threshold: 3 });

    await report(p, k.id);
    const again = await t.sdk("GET", `/v1/sdk/violations?keyId=${k.id}&kind=AUTO_REVOKED`, { as: p });
    assert.equal(again.body.total, 1, "a revoked key is not revoked again");
  });

  test("counts a coalesced report of 5 repeats as 5, as the app does: it reaches a threshold of 5", async () => {
    const p = await t.newProject("coalesced");
    await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { autoRevoke: { threshold: 5, windowMinutes: 10 } } });
    const k = await t.mintKey("d", {}, p);
    const below = await t.mintKey("d", {}, p);
    const since = new Date(Date.now() - 60_000).toISOString();
    await report(p, below.id, { metadata: { repeats: 4, since, first: crypto.randomUUID() } });
    assert.equal(await verify(p, below.key), true, "4 repeats stay below a threshold of 5");
    await report(p, k.id, { metadata: { repeats: 5, since, first: crypto.randomUUID() } });
    assert.equal(await verify(p, k.key), false, "one report standing for 5 repeats revokes");
    const auto = await t.sdk("GET", `/v1/sdk/violations?keyId=${k.id}&kind=AUTO_REVOKED`, { as: p });
    assert.equal(auto.body.violations[0].metadata.count, 5);
  });

  test("counts only the listed kinds and severities, only within the window, and only the key's own", async () => {
    const p = await t.newProject("kinds");
    await t.sdk("PUT", "/v1/sdk/policy", {
      as: p,
      body: { autoRevoke: { threshold: 2, windowMinutes: 5, kinds: ["UNKNOWN_INTENT"] } },
    });
    const k = await t.mintKey("c", {}, p);
    const other = await t.mintKey("c", {}, p);
    await report(p, k.id, { kind: "FORBIDDEN_SCOPE", severity: "severe" });
    await report(p, k.id, {
      kind: "UNKNOWN_INTENT",
      severity: "info",
      at: new Date(Date.now() - 6 * 60_000).toISOString(),
    });
    await report(p, other.id, { kind: "UNKNOWN_INTENT", severity: "info" });
    await report(p, k.id, { kind: "UNKNOWN_INTENT", severity: "info" });
    assert.equal(await verify(p, k.key), true, "one counted violation within the window");
    await report(p, k.id, { kind: "UNKNOWN_INTENT", severity: "info" });
    assert.equal(await verify(p, k.key), false);
    assert.equal(await verify(p, other.key), true);
  });
});
