// @slow: a cloud on a socket for the hybrid, cloud-mode and /v1 cases
// The 401 of a key that exists but no longer works says why (details.reason revoked, expired or rerolled, with
// details.at), in local, hybrid and cloud modes and at the cloud's own agent routes; an unknown key gets the plain
// message and no reason; a badly shaped key gets its own message; the agent client surfaces the reason.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Svc } from "../../../mod.ts";
import { AgentClient, keyRefusalOf } from "../../../core/agent/mod.ts";
import { asAgent, asUser, BASE, errorOf, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";

const MINUTE = 60_000;
const START = Date.parse("2026-03-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** The refusal of a key at the app: its error envelope. */
async function refusalAt(svc: Svc, key: string): Promise<{ code: string; message: string; details?: unknown }> {
  const res = await asAgent(svc, key, "GET", "/svc/agent/intents");
  assert.equal(res.status, 401);
  return await errorOf(res);
}

/** Revoked, expired and rerolled keys, and an unknown one, at an app on the clock `time`. */
async function checkReasons(svc: Svc, time: { at: number }): Promise<void> {
  const revoked = await mint(svc, "alice", []);
  time.at += MINUTE;
  assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${revoked.id}`)).status, 200);
  const expiring = await mint(svc, "alice", [], { expiresInDays: 1 });
  const rerolled = await mint(svc, "alice", []);
  const res = await asUser(svc, "alice", "POST", `/svc/keys/${rerolled.id}/reroll`, { graceMinutes: 10 });
  assert.equal(res.status, 201);
  const graceEnd = time.at + 10 * MINUTE;
  const expiry = time.at + 86_400_000;
  time.at = expiry;

  const revokedAnswer = await refusalAt(svc, revoked.key);
  assert.equal(revokedAnswer.code, "UNAUTHORIZED");
  assert.equal((revokedAnswer.details as { reason: string }).reason, "revoked");
  assert.equal(
    Date.parse((revokedAnswer.details as { at: string }).at) >= START + MINUTE,
    true,
    "at: when it was revoked",
  );
  assert.deepEqual((await refusalAt(svc, expiring.key)).details, { reason: "expired", at: iso(expiry) });
  assert.deepEqual((await refusalAt(svc, rerolled.key)).details, { reason: "rerolled", at: iso(graceEnd) });
  const unknown = await refusalAt(svc, `svc_live_${"A".repeat(40)}`);
  assert.deepEqual(unknown, { code: "UNAUTHORIZED", message: "Invalid agent key" }, "an unknown key: no reason");
}

test("local mode: revoked, expired and rerolled keys say why; an unknown key does not", async () => {
  const time = { at: START };
  const svc = notesSvc({}, () => time.at);
  try {
    await checkReasons(svc, time);
  } finally {
    await svc.close();
  }
});

test("a badly shaped key gets its own message, a missing one the one that asks for a key", async () => {
  const svc = notesSvc();
  try {
    for (const header of ["Bearer svc_live_short", "Bearer sk_live_abcdefabcdefabcdefabcdef", "Basic dXNlcjpwdw=="]) {
      const res = await svc.handle(new Request(`${BASE}/svc/agent/intents`, { headers: { authorization: header } }));
      assert.equal(res.status, 401);
      const { message, details } = await errorOf(res);
      assert.match(message, /^Malformed agent key/, header);
      assert.equal(details, undefined);
    }
    const missing = await errorOf(await svc.handle(new Request(`${BASE}/svc/agent/intents`)));
    assert.match(missing.message, /^An agent key is required/);
  } finally {
    await svc.close();
  }
});

test("the agent client surfaces the reason and its time; other errors have none", async () => {
  const time = { at: START };
  const svc = notesSvc({}, () => time.at);
  try {
    const minted = await mint(svc, "alice", ["notes:read"], { expiresInDays: 1 });
    const agent = new AgentClient({ key: minted.key, appUrl: BASE, fetch: (req) => svc.handle(req) });
    assert.equal((await agent.intents()).length > 0, true);
    time.at += 86_400_000;
    const error = await agent.intents().then(() => null, (e) => e);
    assert.deepEqual(keyRefusalOf(error), { reason: "expired", at: iso(time.at) });
    const stranger = new AgentClient({ key: `svc_live_${"B".repeat(40)}`, appUrl: BASE, fetch: (r) => svc.handle(r) });
    assert.equal(keyRefusalOf(await stranger.intents().then(() => null, (e) => e)), null);
    assert.equal(keyRefusalOf(new Error("x")), null);
  } finally {
    await svc.close();
  }
});

describe("hybrid, cloud mode and the cloud's own agent routes", () => {
  let dir: string;
  let cloud: CloudServer;
  const time = { at: START };
  const now = () => time.at;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-key-reasons-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`, { now });
  });
  after(async () => {
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("cloud mode: a key the app has just verified says why when it expires; otherwise the cloud never says", async () => {
    // The cloud's verify route never says why a key is invalid (the contract): a cloud-mode app knows a reason only
    // from its own short cache of keys it verified. First in this file: no revocation in the feed yet, whose
    // replay at start would keep the verification out of the cache.
    const config = cloud.appConfig({ maxRevocationLagMs: false, keyCacheTtlMs: 2000 });
    const svc = notesSvc({ mode: "cloud", cloud: config }, now);
    try {
      const expiresAt = iso(time.at + 1000);
      const expiring = await mint(svc, "erin", [], { expiresAt });
      assert.equal((await asAgent(svc, expiring.key, "GET", "/svc/agent/intents")).status, 200);
      time.at += 1000;
      assert.deepEqual((await refusalAt(svc, expiring.key)).details, { reason: "expired", at: expiresAt });
      time.at += MINUTE; // the app's cache forgot the key: the cloud answers valid: false, and no more
      assert.equal((await refusalAt(svc, expiring.key)).details, undefined);
    } finally {
      await svc.close();
    }
  });

  test("hybrid: the app says why, and so does the cloud's inbox for the mirrored key", async () => {
    const svc = notesSvc(
      { mode: "hybrid", storage: `file:${join(dir, "app.db")}`, cloud: cloud.appConfig({ maxRevocationLagMs: false }) },
      now,
    );
    try {
      await svc.ready;
      await checkReasons(svc, time);
      const expiring = await mint(svc, "dan", [], { expiresInDays: 1 });
      assert.equal(await svc.sync(), 0);
      time.at += 86_400_000;
      const res = await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${expiring.key}` } });
      assert.equal(res.status, 401);
      assert.deepEqual((await errorOf(res)).details, { reason: "expired", at: iso(time.at) });
      const unknown = await fetch(`${cloud.url}/v1/agent/inbox`, {
        headers: { authorization: `Bearer svc_live_${"C".repeat(40)}` },
      });
      assert.equal(unknown.status, 401);
      assert.equal((await errorOf(unknown)).details, undefined, "an unknown key: no reason at the cloud either");
    } finally {
      await svc.close();
    }
  });
});
