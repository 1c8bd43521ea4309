// Keys that expire, as a user asks at POST /svc/keys and as the app's `keys` config bounds them; the clock is
// injected (createSvcWith's now), so a key expires between two requests without any wait.
import { test } from "node:test";
import assert from "node:assert/strict";
import { asAgent, asUser, errorOf, mint, notesSvc } from "../../../fixtures/notes_svc.ts";

const START = Date.parse("2026-03-01T00:00:00.000Z");
const DAY = 86_400_000;

function clock(): { now: () => number; advance(ms: number): void } {
  let at = START;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

test("a key expiring between two requests: served before, refused 401 after and recorded as EXPIRED_KEY", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const { key, id } = await mint(svc, "alice", ["notes:read"], { expiresInDays: 1 });
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys[0].expiresAt, new Date(START + DAY).toISOString());
    assert.equal((await asAgent(svc, key, "GET", "/svc/agent/intents")).status, 200);
    time.advance(DAY);
    const refused = await asAgent(svc, key, "GET", "/svc/agent/intents");
    assert.equal(refused.status, 401);
    assert.equal((await errorOf(refused)).code, "UNAUTHORIZED");
    const [violation] = await svc.violations({ keyId: id });
    assert.equal(violation.kind, "EXPIRED_KEY");
  } finally {
    await svc.close();
  }
});

test("POST /svc/keys takes expiresAt or expiresInDays, not both, and only a future expiresAt", async () => {
  const time = clock();
  const svc = notesSvc({}, time.now);
  try {
    const at = new Date(START + 3 * DAY).toISOString();
    await mint(svc, "alice", [], { expiresAt: at });
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.equal(keys[0].expiresAt, at);
    for (
      const [extra, path] of [
        [{ expiresAt: at, expiresInDays: 1 }, "expiresInDays"],
        [{ expiresAt: new Date(START - 1).toISOString() }, "expiresAt"],
        [{ expiresAt: "tomorrow" }, "expiresAt"],
        [{ expiresInDays: 0 }, "expiresInDays"],
        [{ expiresInDays: 1.5 }, "expiresInDays"],
      ] as const
    ) {
      const res = await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: [], ...extra });
      assert.equal(res.status, 400, JSON.stringify(extra));
      const error = await errorOf(res);
      assert.equal(error.code, "VALIDATION_ERROR");
      assert.equal((error.details as { issues: { path: string }[] }).issues[0].path, path, JSON.stringify(extra));
    }
    assert.equal((await (await asUser(svc, "alice", "GET", "/svc/keys")).json()).keys.length, 1, "nothing stored");
  } finally {
    await svc.close();
  }
});

test("the app's keys config gives keys a default lifetime and refuses one beyond its maximum, naming it", async () => {
  const time = clock();
  const svc = notesSvc({ keys: { defaultLifetimeDays: 7, maxLifetimeDays: 30 } }, time.now);
  try {
    await mint(svc, "alice", []);
    await mint(svc, "alice", [], { expiresInDays: 30 });
    const { keys } = await (await asUser(svc, "alice", "GET", "/svc/keys")).json();
    assert.deepEqual(keys.map((k: { expiresAt: string }) => k.expiresAt).sort(), [
      new Date(START + 7 * DAY).toISOString(),
      new Date(START + 30 * DAY).toISOString(),
    ]);
    const beyond = await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: [], expiresInDays: 31 });
    assert.equal(beyond.status, 400);
    const { details } = await errorOf(beyond);
    assert.match((details as { issues: { message: string }[] }).issues[0].message, /30 days/);
    const far = new Date(START + 31 * DAY).toISOString();
    assert.equal(
      (await asUser(svc, "alice", "POST", "/svc/keys", { name: "k", scopes: [], expiresAt: far })).status,
      400,
    );
  } finally {
    await svc.close();
  }
});

test("createSvc refuses a keys config whose default is above its maximum, or not whole days", () => {
  assert.throws(
    () => notesSvc({ keys: { defaultLifetimeDays: 40, maxLifetimeDays: 30 } }),
    /keys\.defaultLifetimeDays must not be above keys\.maxLifetimeDays/,
  );
  assert.throws(() => notesSvc({ keys: { maxLifetimeDays: 0.5 } }), /keys\.maxLifetimeDays/);
});
