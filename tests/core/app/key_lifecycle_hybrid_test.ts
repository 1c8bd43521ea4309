// @slow: a cloud on a socket
// A key's life in hybrid mode, against a real cloud, both on one injected clock: a key minted with a lifetime
// is mirrored with its expiry, a reroll's schedule is mirrored, both keys work at the app and at the cloud's inbox
// during the grace, the old one is refused at both after it, and the cloud writes the revocation (reason reroll)
// that reaches the app through the feed. Key creation is audited at the cloud with the app as its actor.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../../../mod.ts";
import { asAgent, asUser, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const MINUTE = 60_000;

describe("a key's life at a hybrid app", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;
  let at = Date.parse("2026-03-01T00:00:00.000Z");
  const now = () => at;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-lifecycle-hybrid-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`, { now });
    // The clock jumps by a day: a feed poll that began before the jump is a day old, so no staleness bound here
    // (tests/core/app/cloud_guard_test.ts covers the bound).
    const config = cloud.appConfig({ maxRevocationLagMs: false });
    svc = notesSvc({ mode: "hybrid", storage: `file:${join(dir, "app.db")}`, cloud: config }, now);
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const inbox = async (key: string) =>
    (await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } })).status;
  const atApp = async (key: string) => (await asAgent(svc, key, "GET", "/svc/agent/intents")).status;

  test("an expiring key is mirrored with its expiry and refused at the cloud once expired", async () => {
    const { key, id } = await mint(svc, "erin", [], { expiresInDays: 1 });
    assert.equal(await svc.sync(), 0);
    const listed = (await (await cloud.sdk("GET", "/v1/sdk/keys?userId=erin")).json()).keys;
    assert.equal(listed.find((k: { id: string }) => k.id === id).expiresAt, new Date(at + 86_400_000).toISOString());
    assert.deepEqual([await atApp(key), await inbox(key)], [200, 200]);
    at += 86_400_000;
    assert.deepEqual([await atApp(key), await inbox(key)], [401, 401]);
  });

  test("reroll: both keys during the grace at the app and the cloud, the old refused after, through the feed", async () => {
    const old = await mint(svc, "alice", ["notes:read"]);
    const res = await asUser(svc, "alice", "POST", `/svc/keys/${old.id}/reroll`, { graceMinutes: 15 });
    assert.equal(res.status, 201);
    const fresh = await res.json();
    assert.equal(await svc.sync(), 0, "both records reached the cloud");
    const listed = (await (await cloud.sdk("GET", "/v1/sdk/keys?userId=alice")).json()).keys;
    const revokesAt = new Date(at + 15 * MINUTE).toISOString();
    assert.equal(listed.find((k: { id: string }) => k.id === old.id).revokesAt, revokesAt, "the schedule is mirrored");
    assert.deepEqual([await atApp(old.key), await atApp(fresh.key)], [200, 200]);
    assert.deepEqual([await inbox(old.key), await inbox(fresh.key)], [200, 200]);

    const cursor = (await svc.health()).revocationFeed!.cursor;
    at += 15 * MINUTE;
    assert.deepEqual([await atApp(old.key), await atApp(fresh.key)], [401, 200], "refused at the app on its clock");
    assert.deepEqual([await inbox(old.key), await inbox(fresh.key)], [401, 200], "and at the cloud on its own");

    // The first feed read after the grace writes the revocation (reason reroll) and wakes the app's held poll.
    const page = await (await cloud.sdk("GET", `/v1/sdk/keys/revocations?after=${cursor}`)).json();
    assert.deepEqual(page.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]), [
      [old.id, "reroll"],
    ]);
    await waitFor(
      "the app to apply the feed's reroll",
      async () => (await svc.health()).revocationFeed!.cursor > cursor,
    );
    const keys = (await (await asUser(svc, "alice", "GET", "/svc/keys")).json()).keys;
    assert.equal(keys.find((k: { id: string }) => k.id === old.id).revokedAt, revokesAt);

    const audit = await (await cloud.sdk("GET", "/v1/sdk/audit?limit=100")).json();
    const about = (id: string) =>
      audit.entries.filter((e: { target: string }) => e.target === id)
        .map((
          e: { actor: string; action: string; detail: { reason?: string } },
        ) => [e.actor, e.action, e.detail.reason ?? null]).reverse();
    assert.deepEqual(about(fresh.id), [["app", "key.create", null]]);
    assert.deepEqual(about(old.id), [
      ["app", "key.create", null],
      ["app", "key.reroll", null],
      ["system", "key.revoke", "reroll"],
    ]);
    const reroll = audit.entries.find((e: { action: string }) => e.action === "key.reroll");
    assert.deepEqual(reroll.detail, { successor: fresh.id, revokesAt }, "the reroll names its successor");
  });

  test("cloud mode: a reroll's new key is bounded by the app's own maxLifetimeDays as well as the project's", async () => {
    const unbounded = notesSvc({ mode: "cloud", cloud: cloud.appConfig() }, now);
    const bounded = notesSvc({ mode: "cloud", cloud: cloud.appConfig(), keys: { maxLifetimeDays: 7 } }, now);
    try {
      const old = await mint(unbounded, "carol", ["notes:read"]);
      const res = await asUser(bounded, "carol", "POST", `/svc/keys/${old.id}/reroll`, { graceMinutes: 0 });
      assert.equal(res.status, 201);
      const fresh = await res.json();
      const listed = (await (await cloud.sdk("GET", "/v1/sdk/keys?userId=carol")).json()).keys;
      const expiry = (id: string) => listed.find((k: { id: string }) => k.id === id).expiresAt;
      assert.equal(expiry(old.id), null, "the old key never expired");
      assert.equal(expiry(fresh.id), new Date(at + 7 * 24 * 60 * MINUTE).toISOString(), "the app's seven days");
    } finally {
      await unbounded.close();
      await bounded.close();
    }
  });

  test("a revoke a user makes through the app is audited at the cloud with actor app", async () => {
    const { id } = await mint(svc, "bob", []);
    assert.equal((await asUser(svc, "bob", "DELETE", `/svc/keys/${id}`)).status, 200);
    assert.equal(await svc.sync(), 0);
    const { entries } = await (await cloud.sdk("GET", "/v1/sdk/audit?action=key.revoke")).json();
    const entry = entries.find((e: { target: string }) => e.target === id);
    assert.deepEqual([entry.actor, entry.detail.reason], ["app", "app"]);
  });

  test("the project's keyLifetime policy bounds the keys a hybrid app mints, with its own keys config", async () => {
    const policy = { autoRevoke: { threshold: 100, windowMinutes: 1 }, keyLifetime: { maxDays: 3 } };
    assert.equal((await cloud.sdk("PUT", "/v1/sdk/policy", policy)).status, 200);
    const other = notesSvc({
      mode: "hybrid",
      storage: `file:${join(dir, "other.db")}`,
      cloud: cloud.appConfig(),
      keys: { defaultLifetimeDays: 30 },
    }, now);
    try {
      await waitFor("the app to read the project's policy", async () => (await other.health()).autoRevoke);
      const beyond = await asUser(other, "fay", "POST", "/svc/keys", { name: "k", scopes: [], expiresInDays: 4 });
      assert.equal(beyond.status, 400);
      assert.match((await beyond.json()).error.details.issues[0].message, /3 days/);
      await mint(other, "fay", []);
      const [key] = (await (await asUser(other, "fay", "GET", "/svc/keys")).json()).keys;
      assert.equal(key.expiresAt, new Date(at + 3 * 86_400_000).toISOString(), "the app's default, within the maximum");
    } finally {
      await other.close();
      await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: null, keyLifetime: null });
    }
  });
});
