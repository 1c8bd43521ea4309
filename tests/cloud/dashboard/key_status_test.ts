import { test } from "node:test";
import assert from "node:assert/strict";
import { keyStatus } from "../../../cloud/dashboard/keys_page.ts";
import type { KeyRecord } from "../../../core/contract/mod.ts";

const NOW = Date.parse("2026-11-25T12:00:00.000Z");
const key = (over: Partial<KeyRecord>): KeyRecord => ({
  id: "k1",
  userId: "alice",
  name: "ci agent",
  scopes: [],
  agentId: "alice",
  hash: "h",
  start: "svc_live_abc",
  createdAt: "2026-11-01T00:00:00.000Z",
  lastUsedAt: null,
  revokedAt: null,
  expiresAt: null,
  revokesAt: null,
  ...over,
});
const text = (k: KeyRecord) => String(keyStatus(k, NOW)).replace(/<[^>]+>/g, "").replace(/\s+/g, " ").trim();

test("a key's status names a revocation first, then an expiry, then a scheduled revocation", () => {
  assert.equal(text(key({})), "active");
  assert.equal(text(key({ expiresAt: "2026-12-01T00:00:00.000Z" })), "active", "an expiry to come is not a status");
  assert.match(text(key({ expiresAt: "2026-11-25T12:00:00.000Z" })), /^expired 2026-11-25 12:00:00 UTC$/);
  assert.match(
    text(key({ revokesAt: "2026-11-25T13:00:00.000Z" })),
    /^active, revocation scheduled 2026-11-25 13:00:00 UTC$/,
  );
  assert.match(
    text(key({ revokedAt: "2026-11-20T00:00:00.000Z", expiresAt: "2026-11-21T00:00:00.000Z" })),
    /^revoked 2026-11-20 00:00:00 UTC$/,
  );
});
