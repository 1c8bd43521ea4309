// A key's lifetime at minting, the same rule on both sides: what the request asks, bounded by a default and a
// maximum; a rerolled key's successor lives as long as the key it replaces.
import { test } from "node:test";
import assert from "node:assert/strict";
import { joinLifetimes, keyExpiry, successorExpiry } from "../../../core/keys/mod.ts";
import { isSvcError } from "../../../core/errors/mod.ts";

const NOW = Date.parse("2026-03-01T00:00:00.000Z");
const DAY = 86_400_000;

function issueOf(fn: () => unknown): { path: string; message: string } {
  try {
    fn();
  } catch (error) {
    assert.ok(isSvcError(error));
    assert.equal(error.code, "VALIDATION_ERROR");
    return (error.details as { issues: { path: string; message: string }[] }).issues[0];
  }
  throw new Error("not refused");
}

test("keyExpiry gives never without a request or bounds, and the request's time otherwise", () => {
  assert.equal(keyExpiry({}, {}, NOW), null);
  assert.equal(keyExpiry({ expiresInDays: 2 }, {}, NOW), new Date(NOW + 2 * DAY).toISOString());
  assert.equal(keyExpiry({ expiresAt: "2026-03-05T12:00:00+02:00" }, {}, NOW), "2026-03-05T10:00:00.000Z");
});

test("keyExpiry applies the default, else the maximum, to a key minted without a lifetime", () => {
  assert.equal(keyExpiry({}, { defaultDays: 7 }, NOW), new Date(NOW + 7 * DAY).toISOString());
  assert.equal(keyExpiry({}, { maxDays: 30 }, NOW), new Date(NOW + 30 * DAY).toISOString());
});

test("keyExpiry refuses a past expiry and one beyond the maximum, naming the maximum", () => {
  assert.deepEqual(issueOf(() => keyExpiry({ expiresAt: "2026-02-01T00:00:00Z" }, {}, NOW)), {
    path: "expiresAt",
    message: "Must be in the future",
  });
  const beyond = issueOf(() => keyExpiry({ expiresInDays: 31 }, { maxDays: 30 }, NOW));
  assert.equal(beyond.path, "expiresInDays");
  assert.match(beyond.message, /30 days/);
  assert.equal(keyExpiry({ expiresInDays: 30 }, { maxDays: 30 }, NOW), new Date(NOW + 30 * DAY).toISOString());
});

test("joinLifetimes keeps the shortest maximum and the first default within it", () => {
  assert.deepEqual(joinLifetimes({ defaultDays: 30 }, { maxDays: 7 }), { defaultDays: 7, maxDays: 7 });
  assert.deepEqual(joinLifetimes({ maxDays: 90 }, { defaultDays: 10, maxDays: 60 }), { defaultDays: 10, maxDays: 60 });
  assert.deepEqual(joinLifetimes(null, undefined), { defaultDays: null, maxDays: null });
});

test("successorExpiry gives the old key's lifetime again from now, within the maximum", () => {
  const old = { createdAt: "2026-02-01T00:00:00.000Z", expiresAt: "2026-02-11T00:00:00.000Z" };
  assert.equal(successorExpiry(old, {}, NOW), new Date(NOW + 10 * DAY).toISOString());
  assert.equal(successorExpiry(old, { maxDays: 3 }, NOW), new Date(NOW + 3 * DAY).toISOString());
  assert.equal(successorExpiry({ createdAt: old.createdAt, expiresAt: null }, {}, NOW), null);
  assert.equal(
    successorExpiry({ createdAt: old.createdAt, expiresAt: null }, { defaultDays: 1 }, NOW),
    new Date(NOW + DAY).toISOString(),
  );
});
