// @slow: a real cloud on a socket, a hybrid and a cloud-mode app beside it
// What agents did, end to end with a real cloud: a hybrid app and a cloud-mode app run intents (ok, refused, invalid,
// and a key that no longer works), the records go through their outboxes to the cloud, the cloud's
// `GET /v1/sdk/activity` (SDK auth) lists each once with its fields, and the cloud-mode app's `GET /svc/activity` reads
// the signed-in user's back from the cloud; another user sees nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../mod.ts";
import { asAgent, asUser, BASE, mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../fixtures/servers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import type { ActivityRecord } from "../../core/contract/mod.ts";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const ACT_ID = /^act_[0-9A-HJKMNP-TV-Z]{26}$/;

/** What a record says of a run, without its id, time and duration. */
type Seen = Pick<ActivityRecord, "keyId" | "userId" | "agentId" | "intent" | "via" | "outcome" | "status" | "code">;

const seen = ({ keyId, userId, agentId, intent, via, outcome, status, code }: ActivityRecord): Seen => ({
  keyId,
  userId,
  agentId,
  intent,
  via,
  outcome,
  status,
  code,
});

/** An MCP `tools/call` of notes.list with `key`. */
function mcpCall(svc: Svc, key: string): Promise<Response> {
  const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "notes.list", arguments: {} } };
  return svc.handle(
    new Request(`${BASE}/svc/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify(call),
    }),
  );
}

/** Runs ok, refused (scope) and invalid (payload) with a key of notes:write; what each record should say. */
async function runThree(svc: Svc, minted: { key: string; id: string; agentId: string | null }, user: string) {
  assert.equal((await run(svc, minted.key, "notes.create", { title: "secret title" })).status, 200);
  assert.equal((await run(svc, minted.key, "notes.list")).status, 403);
  assert.equal((await run(svc, minted.key, "notes.create", { title: 42 })).status, 400);
  const base = { keyId: minted.id, userId: user, agentId: minted.agentId, via: "http" as const };
  return [
    { ...base, intent: "notes.create", outcome: "ok", status: 200, code: undefined },
    { ...base, intent: "notes.list", outcome: "refused", status: 403, code: "FORBIDDEN_SCOPE" },
    { ...base, intent: "notes.create", outcome: "invalid", status: 400, code: "INTENT_VALIDATION_ERROR" },
  ] as Seen[];
}

/** The cloud's records of `userId`, oldest first, read with SDK auth. */
async function atCloud(cloud: CloudServer, userId: string): Promise<ActivityRecord[]> {
  const res = await cloud.sdk("GET", `/v1/sdk/activity?userId=${userId}&limit=100`);
  assert.equal(res.status, 200, await res.clone().text());
  const { activity, nextCursor } = await res.json();
  assert.equal(nextCursor, null);
  return (activity as ActivityRecord[]).reverse();
}

/** Checks the fields every record has, and that each id is listed once. */
function checkRecords(records: ActivityRecord[]): void {
  assert.equal(new Set(records.map((r) => r.id)).size, records.length, "each record once");
  for (const record of records) {
    assert.match(record.id, ACT_ID);
    assert.ok(Date.parse(record.at) >= T0);
    assert.ok(record.ms >= 0);
  }
  assert.ok(!JSON.stringify(records).includes("secret title"), "never the payload");
}

describe("activity with a real cloud", () => {
  const dir = tempDir("svc-activity-e2e-");
  const time = { at: T0 };
  const now = () => time.at;
  let cloud: CloudServer;
  const apps: Svc[] = [];

  before(async () => {
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`, { now });
  });
  after(async () => {
    for (const svc of apps) await svc.close();
    await cloud.stop();
    dir.remove();
  });

  test("a cloud-mode app's runs reach the cloud once each, and GET /svc/activity reads them back", async () => {
    // First: no revocation in the feed yet, whose replay at start keeps a verification out of the app's key cache.
    const config = cloud.appConfig({ maxRevocationLagMs: false, keyCacheTtlMs: 2000 });
    const svc = notesSvc({ mode: "cloud", cloud: config }, now);
    apps.push(svc);
    await svc.ready;
    const minted = await mint(svc, "carl", ["notes:write"], { expiresAt: new Date(time.at + 1000).toISOString() });
    const expected = await runThree(svc, minted, "carl");
    // A key the app has just verified expires: refused, its body unread.
    time.at += 1000;
    assert.equal((await run(svc, minted.key, "notes.create", { title: "x" })).status, 401);
    expected.push({ ...expected[0], intent: "(unknown)", outcome: "refused", status: 401, code: "UNAUTHORIZED" });
    assert.equal(await svc.sync(), 0, "nothing waits in the outbox");

    const stored = await atCloud(cloud, "carl");
    checkRecords(stored);
    assert.deepEqual(stored.map(seen), expected);

    const res = await asUser(svc, "carl", "GET", "/svc/activity?limit=10");
    assert.equal(res.status, 200);
    const { activity, nextCursor } = await res.json();
    assert.equal(nextCursor, null);
    assert.deepEqual(activity, [...stored].reverse(), "the cloud's records, newest first");
    const bob = await (await asUser(svc, "bob", "GET", "/svc/activity")).json();
    assert.deepEqual(bob, { activity: [], nextCursor: null }, "another user sees nothing");
    assert.deepEqual(await atCloud(cloud, "bob"), []);
  });

  test("a hybrid app's runs, and a revoked key's run and MCP call, reach the cloud once each", async () => {
    const config = cloud.appConfig({ maxRevocationLagMs: false });
    const svc = notesSvc({ mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: config }, now);
    apps.push(svc);
    await svc.ready;
    const minted = await mint(svc, "hana", ["notes:write"]);
    const expected = await runThree(svc, minted, "hana");
    assert.equal((await asUser(svc, "hana", "DELETE", `/svc/keys/${minted.id}`)).status, 200);
    assert.equal((await run(svc, minted.key, "notes.create", { title: "x" })).status, 401);
    assert.equal((await mcpCall(svc, minted.key)).status, 401);
    assert.equal((await asAgent(svc, minted.key, "GET", "/svc/agent/intents")).status, 401, "a listing: no record");
    const refused = { intent: "(unknown)", outcome: "refused", status: 401, code: "UNAUTHORIZED" } as const;
    expected.push({ ...expected[0], ...refused }, { ...expected[0], ...refused, via: "mcp" });
    assert.equal(await svc.sync(), 0, "nothing waits in the outbox");

    const stored = await atCloud(cloud, "hana");
    checkRecords(stored);
    assert.deepEqual(stored.map(seen), expected);
    const own = await (await asUser(svc, "hana", "GET", "/svc/activity?limit=10")).json();
    assert.deepEqual(own.activity, [...stored].reverse(), "the app's own records are the cloud's");
    const bob = await (await asUser(svc, "bob", "GET", "/svc/activity")).json();
    assert.deepEqual(bob, { activity: [], nextCursor: null }, "another user sees nothing");
  });
});
