// A hybrid app's key mirror (PUT /v1/sdk/keys/:id) held to the project's rules at the cloud, on a real in-memory
// libSQL cloud with an injected clock: its expiry to the project's keyLifetime maximum from its creation, and a key
// created before its user's revoke-all, mirrored after it, stored revoked and carried by the revocation feed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type KeyRecord, mintAgentKey } from "../../../core/contract/mod.ts";
import { type Project, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const START = Date.parse("2026-03-01T00:00:00.000Z");
const DAY = 86_400_000;
const MINUTE = 60_000;

describe("PUT /v1/sdk/keys/:id held to the project's rules", () => {
  let t: TestCloud;
  let at = START;
  before(async () => t = await startTestCloud({ now: () => at }));
  after(() => t.close());

  /** A key as a hybrid app mints it, created at `createdAt` (milliseconds). */
  async function appKey(userId: string, createdAt: number, expiresAt: string | null = null) {
    return await mintAgentKey(userId, { name: "k", scopes: [], agentId: userId, expiresAt }, createdAt);
  }
  /** Mirrors a record as the app's outbox does. */
  async function mirror(p: Project, record: KeyRecord): Promise<number> {
    const body = { ...record, id: undefined, lastUsedAt: undefined };
    return (await t.sdk("PUT", `/v1/sdk/keys/${record.id}`, { as: p, body })).status;
  }
  const verify = async (p: Project, key: string) =>
    (await t.sdk("POST", "/v1/sdk/keys/verify", { as: p, body: { key } })).body.valid;
  const inbox = async (key: string) => (await t.agent(key, "GET", "/v1/agent/inbox")).status;
  const expiries = async (p: Project, userId: string) =>
    Object.fromEntries(
      (await t.sdk("GET", `/v1/sdk/keys?userId=${userId}`, { as: p })).body.keys
        .map((k: { id: string; expiresAt: string | null }) => [k.id, k.expiresAt]),
    );

  test("a mirror with no expiry or 3,650 days gets the project's 30-day maximum from its createdAt; refused after", async () => {
    const p = await t.newProject("clamped");
    assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { keyLifetime: { maxDays: 30 } } })).status, 200);
    const created = at - DAY;
    const never = await appKey("hal", created);
    const decade = await appKey("hal", created, new Date(created + 3650 * DAY).toISOString());
    const week = await appKey("hal", created, new Date(created + 7 * DAY).toISOString());
    for (const { record } of [never, decade, week]) assert.equal(await mirror(p, record), 200);
    const max = new Date(created + 30 * DAY).toISOString();
    assert.deepEqual(await expiries(p, "hal"), {
      [never.record.id]: max,
      [decade.record.id]: max,
      [week.record.id]: new Date(created + 7 * DAY).toISOString(),
    });
    // A later mirror of the same record (its revoke, a retry) never lengthens the expiry again.
    assert.equal((await t.sdk("PUT", "/v1/sdk/policy", { as: p, body: { keyLifetime: null } })).status, 200);
    assert.equal(await mirror(p, never.record), 200);
    assert.equal((await expiries(p, "hal"))[never.record.id], max);

    at = created + 30 * DAY - 1;
    assert.deepEqual([await verify(p, never.key), await verify(p, decade.key)], [true, true]);
    assert.deepEqual([await inbox(never.key), await inbox(decade.key)], [200, 200]);
    at = created + 30 * DAY;
    assert.deepEqual([await verify(p, never.key), await verify(p, decade.key)], [false, false]);
    assert.deepEqual([await inbox(never.key), await inbox(decade.key)], [401, 401]);
    at = START;
  });

  test("a key created before its user's revoke-all and mirrored after it is stored revoked, through the feed", async () => {
    const p = await t.newProject("watermark");
    const early = await appKey("ida", at - MINUTE);
    const sameTime = await appKey("ida", at);
    const otherUser = await appKey("joe", at - MINUTE);
    const revokeAll = await t.sdk("DELETE", "/v1/sdk/keys?userId=ida", { as: p });
    assert.deepEqual(revokeAll.body, { ok: true, revoked: 0 }, "the cloud knew none of ida's keys yet");
    const seq = (await t.sdk("GET", "/v1/sdk/keys/revocations", { as: p })).body.nextSeq;
    at += MINUTE;
    const later = await appKey("ida", at);
    for (const { record } of [early, sameTime, otherUser, later]) assert.equal(await mirror(p, record), 200);

    assert.deepEqual(
      [await verify(p, early.key), await verify(p, sameTime.key), await verify(p, otherUser.key)],
      [false, false, true],
    );
    assert.equal(await verify(p, later.key), true, "a key created after the revoke-all is not touched");
    const feed = (await t.sdk("GET", `/v1/sdk/keys/revocations?after=${seq}`, { as: p })).body.revocations;
    assert.deepEqual(
      feed.map((r: { keyId: string; reason: string; revokedAt: string }) => [r.keyId, r.reason, r.revokedAt]),
      [early, sameTime].map(({ record }) => [record.id, "tooling", new Date(START).toISOString()]),
    );
    const audit = (await t.sdk("GET", "/v1/sdk/audit?action=key.revoke", { as: p })).body.entries;
    assert.deepEqual(
      audit.filter((e: { target: string }) => e.target === early.record.id).map((e: { detail: unknown }) => e.detail),
      [{ reason: "tooling" }],
    );
    at = START;
  });
});
