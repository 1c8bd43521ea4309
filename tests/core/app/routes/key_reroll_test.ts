// POST /svc/keys/:id/reroll: a new key with the same name, scopes and agentId, shown once; the old key keeps
// working for the grace and is refused after it, checked against the injected clock (no timer, no wait).
import { test } from "node:test";
import assert from "node:assert/strict";
import { asAgent, asUser, errorOf, mint, notesSvc } from "../../../fixtures/notes_svc.ts";

const START = Date.parse("2026-03-01T00:00:00.000Z");
const MINUTE = 60_000;

function clock(): { now: () => number; advance(ms: number): void } {
  let at = START;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

test("both keys work during the grace, the old one is refused after it, and the listing shows the schedule", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const agentId = `agt_${crypto.randomUUID()}`;
    const old = await mint(svc, "alice", ["notes:read"], { agentId });
    const res = await asUser(svc, "alice", "POST", `/svc/keys/${old.id}/reroll`, { graceMinutes: 30 });
    assert.equal(res.status, 201);
    const fresh = await res.json();
    assert.deepEqual(Object.keys(fresh).sort(), ["agentId", "createdAt", "id", "key", "name", "scopes"]);
    assert.deepEqual([fresh.name, fresh.scopes, fresh.agentId], [old.name, old.scopes, agentId]);
    assert.notEqual(fresh.id, old.id);
    assert.notEqual(fresh.key, old.key);

    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    const listed = Object.fromEntries(keys.map((k: { id: string }) => [k.id, k]));
    assert.equal(listed[old.id].revokesAt, new Date(START + 30 * MINUTE).toISOString(), "revocation scheduled");
    assert.equal(listed[old.id].revokedAt, null);
    assert.equal(listed[fresh.id].revokesAt, null);
    assert.equal(JSON.stringify(keys).includes(fresh.key), false, "the new key is shown once");

    time.advance(30 * MINUTE - 1);
    assert.equal((await asAgent(svc, old.key, "GET", "/svc/agent/intents")).status, 200, "old key during the grace");
    assert.equal((await asAgent(svc, fresh.key, "GET", "/svc/agent/intents")).status, 200, "new key");
    time.advance(1);
    assert.equal((await asAgent(svc, old.key, "GET", "/svc/agent/intents")).status, 401, "old key after the grace");
    assert.equal((await asAgent(svc, fresh.key, "GET", "/svc/agent/intents")).status, 200);
    const [violation] = await svc.violations({ keyId: old.id });
    assert.equal(violation.kind, "REVOKED_KEY");
    const after = (await (await asUser(svc, "alice", "GET", "/svc/keys")).json()).keys;
    const revoked = after.find((k: { id: string }) => k.id === old.id);
    assert.equal(revoked.revokedAt, new Date(START + 30 * MINUTE).toISOString(), "listed as revoked at the grace end");
  } finally {
    await svc.close();
  }
});

test("a grace of 0 refuses the old key at once; the default grace is 60 minutes", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const first = await mint(svc, "alice", []);
    const now = await asUser(svc, "alice", "POST", `/svc/keys/${first.id}/reroll`, { graceMinutes: 0 });
    assert.equal(now.status, 201);
    assert.equal((await asAgent(svc, first.key, "GET", "/svc/agent/intents")).status, 401);
    const second = await mint(svc, "alice", []);
    assert.equal((await asUser(svc, "alice", "POST", `/svc/keys/${second.id}/reroll`, {})).status, 201);
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    const listed = keys.find((k: { id: string }) => k.id === second.id);
    assert.equal(listed.revokesAt, new Date(START + 60 * MINUTE).toISOString());
  } finally {
    await svc.close();
  }
});

test("rerolling another user's, an unknown, a revoked, an expired or an already replaced key is 404", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const bobs = await mint(svc, "bob", []);
    const reroll = (id: string, body: unknown = {}) => asUser(svc, "alice", "POST", `/svc/keys/${id}/reroll`, body);
    assert.equal((await reroll(bobs.id)).status, 404);
    assert.equal((await reroll(crypto.randomUUID())).status, 404);
    const revoked = await mint(svc, "alice", []);
    await asUser(svc, "alice", "DELETE", `/svc/keys/${revoked.id}`);
    assert.equal((await errorOf(await reroll(revoked.id))).code, "NOT_FOUND");
    const expiring = await mint(svc, "alice", [], { expiresInDays: 1 });
    const replaced = await mint(svc, "alice", []);
    assert.equal((await reroll(replaced.id, { graceMinutes: 5 })).status, 201);
    time.advance(86_400_000);
    assert.equal((await reroll(expiring.id)).status, 404, "expired");
    assert.equal((await reroll(replaced.id)).status, 404, "past its grace");
    assert.equal((await asUser(svc, null, "POST", `/svc/keys/${bobs.id}/reroll`, {})).status, 401);
    for (const graceMinutes of [-1, 10_081, 1.5, "60"]) {
      assert.equal((await reroll(bobs.id, { graceMinutes })).status, 400, String(graceMinutes));
    }
    const aliceKeys = (await (await asUser(svc, "alice", "GET", "/svc/keys")).json()).keys;
    assert.equal(aliceKeys.length, 4, "only the one reroll in force minted a key");
  } finally {
    await svc.close();
  }
});

test("a rerolled key with a lifetime passes it on: the successor lives as long, from the reroll", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const old = await mint(svc, "alice", [], { expiresInDays: 10 });
    time.advance(5 * 86_400_000);
    const fresh = await (await asUser(svc, "alice", "POST", `/svc/keys/${old.id}/reroll`, {})).json();
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    const listed = keys.find((k: { id: string }) => k.id === fresh.id);
    assert.equal(listed.expiresAt, new Date(START + 15 * 86_400_000).toISOString());
  } finally {
    await svc.close();
  }
});
