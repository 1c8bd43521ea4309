// A key's life at the cloud, on its injected clock: minting with a lifetime bounded by the project's keyLifetime
// policy, expiry at verify and agent auth (EXPIRED_KEY), reroll with a grace whose end is written as a revocation
// (reason reroll) in the feed and the audit log, and the audit of key creation.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const START = Date.parse("2026-03-01T00:00:00.000Z");
const DAY = 86_400_000;
const MINUTE = 60_000;

describe("a key's life at the cloud", () => {
  let t: TestCloud;
  let at = START;
  before(async () => t = await startTestCloud({ now: () => at }));
  after(() => t.close());

  const verify = async (key: string) => (await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key } })).body;
  const inbox = async (key: string) => (await t.agent(key, "GET", "/v1/agent/inbox")).status;

  test("a key expiring between two requests: valid, then valid: false, refused at the inbox, EXPIRED_KEY", async () => {
    const { key, id } = await t.mintKey("exp", { expiresInDays: 2 });
    const listed = (await t.sdk("GET", "/v1/sdk/keys?userId=exp")).body.keys[0];
    assert.equal(listed.expiresAt, new Date(at + 2 * DAY).toISOString());
    const valid = await verify(key);
    assert.equal(valid.valid, true);
    assert.equal(valid.key.expiresAt, listed.expiresAt, "a cloud-mode app learns when its cached key expires");
    assert.equal(await inbox(key), 200);
    at += 2 * DAY;
    assert.deepEqual(await verify(key), { valid: false });
    assert.equal(await inbox(key), 401);
    const { violations } = (await t.sdk("GET", "/v1/sdk/violations?kind=EXPIRED_KEY")).body;
    assert.equal(violations.filter((v: { keyId: string }) => v.keyId === id).length, 1);
  });

  test("the project's keyLifetime gives a default and refuses a lifetime beyond its maximum, naming it", async () => {
    const p = await t.newProject("lifetimes");
    await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { keyLifetime: { defaultDays: 5, maxDays: 10 } } });
    await t.mintKey("pol", {}, p);
    const [key] = (await t.sdk("GET", "/v1/sdk/keys?userId=pol", { as: p })).body.keys;
    assert.equal(key.expiresAt, new Date(at + 5 * DAY).toISOString());
    const beyond = await t.sdk("POST", "/v1/sdk/keys", {
      as: p,
      body: { userId: "pol", name: "k", scopes: [], expiresInDays: 11 },
    });
    assert.equal(beyond.status, 400);
    assert.match(beyond.body.error.details.issues[0].message, /10 days/);
    const both = await t.sdk("POST", "/v1/sdk/keys", {
      as: p,
      body: { userId: "pol", name: "k", scopes: [], expiresInDays: 1, expiresAt: new Date(at + DAY).toISOString() },
    });
    assert.equal(both.body.error.code, "VALIDATION_ERROR");
  });

  test("reroll: both keys work during the grace; at its end the old is refused, the feed says reroll, audited", async () => {
    const p = await t.newProject("reroll");
    const old = await t.mintKey("rita", { scopes: ["s"] }, p);
    const { seq: before } = { seq: (await t.sdk("GET", "/v1/sdk/keys/revocations", { as: p })).body.nextSeq };
    const res = await t.sdk("POST", `/v1/sdk/keys/${old.id}/reroll`, {
      as: p,
      body: { userId: "rita", graceMinutes: 10 },
    });
    assert.equal(res.status, 201);
    const fresh = res.body;
    assert.deepEqual([fresh.name, fresh.scopes, fresh.agentId], ["k", ["s"], "rita"]);
    const listed = (await t.sdk("GET", "/v1/sdk/keys?userId=rita", { as: p })).body.keys;
    assert.equal(
      listed.find((k: { id: string }) => k.id === old.id).revokesAt,
      new Date(at + 10 * MINUTE).toISOString(),
    );

    const verifyIn = async (key: string) =>
      (await t.sdk("POST", "/v1/sdk/keys/verify", { as: p, body: { key } })).body.valid;
    assert.deepEqual([await verifyIn(old.key), await verifyIn(fresh.key)], [true, true]);
    assert.deepEqual([await inbox(old.key), await inbox(fresh.key)], [200, 200]);
    at += 10 * MINUTE;
    assert.equal(await inbox(old.key), 401, "agent auth checks the schedule against the clock");
    const feed = (await t.sdk("GET", `/v1/sdk/keys/revocations?after=${before}`, { as: p })).body;
    assert.deepEqual(feed.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]), [
      [old.id, "reroll"],
    ]);
    assert.equal(feed.revocations[0].revokedAt, new Date(at).toISOString());
    assert.deepEqual([await verifyIn(old.key), await verifyIn(fresh.key)], [false, true]);

    const { entries } = (await t.sdk("GET", "/v1/sdk/audit?limit=50", { as: p })).body;
    type Entry = { actor: string; action: string; target: string; detail: { reason?: string } };
    const seen = entries.filter((e: Entry) => e.action.startsWith("key."))
      .map((e: Entry) => [e.actor, e.action, e.target, e.detail.reason ?? null]).reverse();
    assert.deepEqual(seen, [
      ["sdk", "key.create", old.id, null],
      ["app", "key.create", fresh.id, null],
      ["app", "key.reroll", old.id, null],
      ["system", "key.revoke", old.id, "reroll"],
    ]);
    const again = await t.sdk("POST", `/v1/sdk/keys/${old.id}/reroll`, { as: p, body: { userId: "rita" } });
    assert.equal(again.status, 404, "a revoked key cannot be rerolled");
    const foreign = await t.sdk("POST", `/v1/sdk/keys/${fresh.id}/reroll`, { as: p, body: { userId: "mallory" } });
    assert.equal(foreign.status, 404, "nor another user's");
  });

  test("a feed poll that would wait past a scheduled revocation answers at it, and the next poll carries it", async () => {
    const p = await t.newProject("held");
    const old = await t.mintKey("hal", {}, p);
    await t.sdk("POST", `/v1/sdk/keys/${old.id}/reroll`, { as: p, body: { userId: "hal", graceMinutes: 0 } });
    const page = (await t.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=20", { as: p })).body;
    assert.deepEqual(page.revocations.map((r: { reason: string }) => r.reason), ["reroll"], "due at once: written");
  });

  test("a cloud-mode app's revoke shows as app in the feed and the audit log; a grant's end as oauth", async () => {
    const p = await t.newProject("actors");
    const mine = await t.mintKey("ann", {}, p);
    const grant = await t.mintKey("ann", {}, p);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${mine.id}?reason=app`, { as: p })).status, 200);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${grant.id}?reason=oauth`, { as: p })).status, 200);
    assert.equal((await t.sdk("DELETE", `/v1/sdk/keys/${grant.id}?reason=auto`, { as: p })).status, 400);
    const feed = (await t.sdk("GET", "/v1/sdk/keys/revocations", { as: p })).body.revocations;
    assert.deepEqual(feed.map((r: { reason: string }) => r.reason), ["app", "oauth"]);
    const { entries } = (await t.sdk("GET", "/v1/sdk/audit?action=key.revoke", { as: p })).body;
    assert.deepEqual(entries.map((e: { actor: string; detail: { reason: string } }) => [e.actor, e.detail.reason]), [
      ["app", "oauth"],
      ["app", "app"],
    ]);
  });
});
