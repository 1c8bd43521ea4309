// What agents did, at a local app: each agent run made with a known key is one activity record, whatever its
// outcome; GET /svc/activity lists the signed-in user's own records, newest first, paged by cursor. Real libSQL, an
// injected clock.
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { asAgent, asUser, BASE, errorOf, mint, notesSvc, run } from "../../../fixtures/notes_svc.ts";
import type { ActivityRecord } from "../../../../core/contract/mod.ts";
import type { Svc } from "../../../../mod.ts";
import { tempDir } from "../../../fixtures/temp_dir.ts";
import { waitFor } from "../../../fixtures/wait_for.ts";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const ACT_ID = /^act_[0-9A-HJKMNP-TV-Z]{26}$/;

/** A clock that moves one millisecond each read, from T0: records made in order sort in order. */
function ticking(): () => number {
  let t = T0;
  return () => t++;
}

/** The signed-in user's page of activity. */
async function activityOf(
  svc: Svc,
  user: string,
  query = "",
): Promise<{ activity: ActivityRecord[]; nextCursor: string | null }> {
  const res = await asUser(svc, user, "GET", `/svc/activity${query}`);
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json();
}

describe("activity of POST /svc/agent/run", () => {
  const svc = notesSvc({}, ticking());
  after(() => svc.close());

  test("each outcome is one record with the key, the intent, the status, the code and the time it took", async () => {
    const { key, id, agentId } = await mint(svc, "alice", ["notes:write"]);
    assert.equal((await run(svc, key, "notes.create", { title: "secret title" })).status, 200);
    assert.equal((await run(svc, key, "notes.list")).status, 403);
    assert.equal((await run(svc, key, "notes.create", { title: 42 })).status, 400);
    assert.equal((await asAgent(svc, key, "POST", "/svc/agent/run", { payload: {} })).status, 400);
    assert.equal((await run(svc, key, "notes.broken")).status, 500);
    assert.equal((await run(svc, key, "no.such.intent")).status, 404);
    const { activity, nextCursor } = await activityOf(svc, "alice");
    assert.equal(nextCursor, null);
    const seen = activity.map(({ intent, via, outcome, status, code }) => ({ intent, via, outcome, status, code }));
    assert.deepEqual(seen.reverse(), [
      { intent: "notes.create", via: "http", outcome: "ok", status: 200, code: undefined },
      { intent: "notes.list", via: "http", outcome: "refused", status: 403, code: "FORBIDDEN_SCOPE" },
      { intent: "notes.create", via: "http", outcome: "invalid", status: 400, code: "INTENT_VALIDATION_ERROR" },
      { intent: "(unknown)", via: "http", outcome: "invalid", status: 400, code: "VALIDATION_ERROR" },
      { intent: "notes.broken", via: "http", outcome: "failed", status: 500, code: "INTENT_FAILED" },
      { intent: "no.such.intent", via: "http", outcome: "refused", status: 404, code: "UNKNOWN_INTENT" },
    ]);
    for (const record of activity) {
      assert.match(record.id, ACT_ID);
      assert.equal(record.keyId, id);
      assert.equal(record.userId, "alice");
      assert.equal(record.agentId, agentId);
      assert.ok(record.ms >= 0);
      assert.ok(Date.parse(record.at) >= T0);
      assert.equal(record.client, undefined);
    }
    const text = JSON.stringify(activity);
    assert.ok(!text.includes("secret title"), "never the payload");
    assert.ok(!text.includes(key), "never the key");
  });

  test("a run of an unknown key is no record: it belongs to no user", async () => {
    const before = (await activityOf(svc, "alice")).activity.length;
    assert.equal((await run(svc, "svc_live_00000000000000000000000000000000", "notes.list")).status, 401);
    assert.equal((await activityOf(svc, "alice")).activity.length, before);
  });

  test("listing a key's intents is no record", async () => {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 200);
    assert.deepEqual((await activityOf(svc, "alice", `?keyId=${id}`)).activity, []);
  });
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

describe("activity of a run with a key that no longer works", () => {
  const svc = notesSvc({ rateLimit: { perKey: { limit: 1, windowMs: 60_000 } } }, ticking());
  after(() => svc.close());

  test("a revoked key's run and MCP request are refused records (401, intent unknown); its listings are none", async () => {
    const { key, id, agentId } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await asUser(svc, "alice", "DELETE", `/svc/keys/${id}`)).status, 200);
    assert.equal((await run(svc, key, "notes.list")).status, 401);
    assert.equal((await mcpCall(svc, key)).status, 401);
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 401);
    const { activity } = await activityOf(svc, "alice", `?keyId=${id}`);
    const seen = activity.map(({ keyId, userId, agentId, intent, via, outcome, status, code }) => ({
      keyId,
      userId,
      agentId,
      intent,
      via,
      outcome,
      status,
      code,
    }));
    const refused = { keyId: id, userId: "alice", agentId, intent: "(unknown)", outcome: "refused", status: 401 };
    assert.deepEqual(seen.reverse(), [
      { ...refused, via: "http", code: "UNAUTHORIZED" },
      { ...refused, via: "mcp", code: "UNAUTHORIZED" },
    ]);
  });

  test("an MCP request refused for its key's rate is a refused record, its intent unknown", async () => {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    const mcp = () => mcpCall(svc, key);
    assert.equal((await mcp()).status, 200);
    assert.equal((await mcp()).status, 429);
    const [refused, ok] = (await activityOf(svc, "alice", `?keyId=${id}`)).activity;
    assert.deepEqual([ok.outcome, ok.via, ok.intent], ["ok", "mcp", "notes.list"]);
    assert.deepEqual(
      [refused.outcome, refused.via, refused.status, refused.code, refused.intent],
      ["refused", "mcp", 429, "RATE_LIMITED", "(unknown)"],
    );
  });
});

describe("activity of a run refused for its rate", () => {
  const svc = notesSvc({ rateLimit: { perKey: { limit: 1, windowMs: 60_000 } } }, ticking());
  after(() => svc.close());

  test("is refused with 429 RATE_LIMITED, its intent unknown (its body is never read)", async () => {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, key, "notes.list")).status, 200);
    assert.equal((await run(svc, key, "notes.list")).status, 429);
    const [refused, ok] = (await activityOf(svc, "alice", `?keyId=${id}`)).activity;
    assert.deepEqual([ok.outcome, ok.intent], ["ok", "notes.list"]);
    assert.deepEqual(
      [refused.outcome, refused.status, refused.code, refused.intent],
      ["refused", 429, "RATE_LIMITED", "(unknown)"],
    );
  });
});

describe("GET /svc/activity", () => {
  const svc = notesSvc({}, ticking());
  after(() => svc.close());

  test("lists only the signed-in user's own keys: another user, or another user's key id, sees nothing", async () => {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    await run(svc, key, "notes.list");
    assert.equal((await activityOf(svc, "alice")).activity.length, 1);
    assert.deepEqual(await activityOf(svc, "bob"), { activity: [], nextCursor: null });
    assert.deepEqual(await activityOf(svc, "bob", `?keyId=${id}`), { activity: [], nextCursor: null });
  });

  test("refuses a signed-out caller with 401", async () => {
    const res = await asUser(svc, null, "GET", "/svc/activity");
    assert.equal(res.status, 401);
    assert.equal((await errorOf(res)).code, "UNAUTHORIZED");
  });

  test("pages newest first by cursor, nextCursor null at the end, one key's runs apart", async () => {
    const { key, id } = await mint(svc, "carol", ["notes:read"]);
    const other = await mint(svc, "carol", ["notes:read"]);
    for (let i = 0; i < 5; i++) await run(svc, key, `notes.list`);
    await run(svc, other.key, "notes.list");
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { activity: ActivityRecord[]; nextCursor: string | null } = await activityOf(
        svc,
        "carol",
        `?keyId=${id}&limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
      );
      ids.push(...page.activity.map((r) => r.id));
      assert.ok(page.activity.every((r) => r.keyId === id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null && pages < 10);
    assert.equal(pages, 3);
    assert.equal(ids.length, 5);
    assert.deepEqual(ids, [...ids].sort().reverse(), "newest first");
    assert.equal((await activityOf(svc, "carol")).activity.length, 6);
  });

  test("refuses a cursor it did not hand out, or a bad limit, with 400 VALIDATION_ERROR", async () => {
    for (const query of ["?cursor=nonsense", "?cursor=YWN0X2JhZA", "?limit=0", "?limit=abc", "?limit=-1"]) {
      const res = await asUser(svc, "alice", "GET", `/svc/activity${query}`);
      assert.equal(res.status, 400, query);
      assert.equal((await errorOf(res)).code, "VALIDATION_ERROR", query);
    }
  });
});

describe("activity: false", () => {
  const svc = notesSvc({ activity: false }, ticking());
  after(() => svc.close());

  test("records nothing: the route answers an empty list", async () => {
    const { key } = await mint(svc, "alice", ["notes:read"]);
    assert.equal((await run(svc, key, "notes.list")).status, 200);
    assert.deepEqual(await activityOf(svc, "alice"), { activity: [], nextCursor: null });
  });
});

describe("activity.retentionDays", () => {
  test("records older than the retention are purged by the retention schedule, on the app's clock", async () => {
    const dir = tempDir("svc-activity-retention-");
    let at = T0;
    const config = { storage: `file:${dir.file("app.db")}`, activity: { retentionDays: 1 } };
    const first = notesSvc(config, () => at);
    try {
      const { key } = await mint(first, "alice", ["notes:read"]);
      await run(first, key, "notes.list");
      assert.equal((await activityOf(first, "alice")).activity.length, 1);
    } finally {
      await first.close();
    }
    at = T0 + 2 * 24 * 60 * 60 * 1000;
    const second = notesSvc(config, () => at);
    try {
      await waitFor("the purge at start", async () => (await activityOf(second, "alice")).activity.length === 0);
    } finally {
      await second.close();
      dir.remove();
    }
  });
});

test("`activity` must be false or { retentionDays } in whole days", () => {
  for (const activity of [true, { retentionDays: 0 }, { retentionDays: 1.5 }, { keep: 3 }]) {
    assert.throws(() => notesSvc({ activity } as never), /activity/, JSON.stringify(activity));
  }
});
