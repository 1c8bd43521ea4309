// OWASP API4: configurable rate limits per agent key on /svc/agent/run and per
// project on the cloud's write routes, answering 429 RATE_LIMITED with
// Retry-After; the limiter's memory stays bounded.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cloudRoutes } from "../../cloud/cloud_routes.ts";
import { createCloudClient } from "../../core/cloud_link/mod.ts";
import { createRateLimiter } from "../../core/abuse/mod.ts";
import { newViolation } from "../../core/contract/mod.ts";
import { asAgent, errorOf, mint, notesSvc, run, SCOPES } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { event, startTestCloud, violation } from "../fixtures/test_cloud.ts";

describe("the rate limiter", () => {
  test("allows a burst of `limit`, then refuses with the wait until the next token", () => {
    const limiter = createRateLimiter({ limit: 3, windowMs: 3000 });
    for (let i = 0; i < 3; i++) assert.deepEqual(limiter.take("k", 0), { allowed: true });
    assert.deepEqual(limiter.take("k", 0), { allowed: false, retryAfterMs: 1000, first: true });
    assert.deepEqual(limiter.take("k", 500), { allowed: false, retryAfterMs: 500, first: false });
    assert.deepEqual(limiter.take("k", 1000), { allowed: true });
    assert.deepEqual(limiter.take("other", 1000), { allowed: true });
  });

  test("keeps at most maxEntries callers, dropping idle ones first", () => {
    const limiter = createRateLimiter({ limit: 2, windowMs: 1000, maxEntries: 100 });
    for (let i = 0; i < 1000; i++) limiter.take(`caller${i}`, i);
    assert.ok(limiter.size <= 100, `${limiter.size} callers kept`);
    // Long after, every bucket is full again: the next newcomer sweeps them all.
    for (let i = 0; i < 100; i++) limiter.take(`late${i}`, 10_000_000);
    assert.ok(limiter.size <= 100);
  });

  test("refuses a limit below 1 or a window of 0", () => {
    assert.throws(() => createRateLimiter({ limit: 0, windowMs: 1000 }), RangeError);
    assert.throws(() => createRateLimiter({ limit: 1, windowMs: 0 }), RangeError);
  });
});

describe("rateLimit.perKey on /svc/agent/run", () => {
  test("answers 429 RATE_LIMITED with Retry-After over the limit and records one RATE_LIMITED violation", async () => {
    const svc = notesSvc({ rateLimit: { perKey: { limit: 3, windowMs: 60_000 } } });
    try {
      const a = await mint(svc, "alice", [...SCOPES]);
      const b = await mint(svc, "bob", [...SCOPES]);
      for (let i = 0; i < 3; i++) assert.equal((await run(svc, a.key, "notes.list")).status, 200);
      for (let i = 0; i < 3; i++) {
        const res = await run(svc, a.key, "notes.list");
        assert.equal(res.status, 429);
        assert.ok(Number(res.headers.get("retry-after")) >= 1);
        assert.equal((await errorOf(res)).code, "RATE_LIMITED");
      }
      // Other keys and the other agent route are not limited by a's rate.
      assert.equal((await run(svc, b.key, "notes.list")).status, 200);
      assert.equal((await asAgent(svc, a.key, "GET", "/svc/agent/intents")).status, 200);
      const limited = (await svc.violations()).filter((v) => v.kind === "RATE_LIMITED");
      assert.equal(limited.length, 1, "one violation per run of refusals, not one per request");
      assert.equal(limited[0].keyId, a.id);
      assert.equal(limited[0].severity, "info");
    } finally {
      await svc.close();
    }
  });

  test("stays out of the way of ordinary use under the default", async () => {
    const svc = notesSvc();
    try {
      const { key } = await mint(svc, "alice", [...SCOPES]);
      for (let i = 0; i < 50; i++) assert.equal((await run(svc, key, "notes.list")).status, 200);
    } finally {
      await svc.close();
    }
  });
});

describe("rateLimit.perProject on the cloud", () => {
  test("limits a project's writes, not its reads, key verification or other projects", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 2, windowMs: 60_000 } } });
    try {
      const other = await t.newProject("other");
      assert.equal((await t.sdk("POST", "/v1/events", { body: event("e1", "bob") })).status, 202);
      assert.equal((await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation() } })).status, 200);
      // Violation reports have a bucket of their own (auto-revoke never waits behind emits): the writes' second token.
      assert.equal((await t.sdk("POST", "/v1/events", { body: event("e1b", "bob") })).status, 202);
      const refused = await t.sdk("POST", "/v1/events", { body: event("e2", "bob") });
      assert.equal(refused.status, 429);
      assert.equal(refused.body.error.code, "RATE_LIMITED");
      assert.ok(Number(refused.headers.get("retry-after")) >= 1);
      assert.equal((await t.sdk("GET", "/v1/agents/bob/inbox")).status, 200);
      assert.equal((await t.sdk("POST", "/v1/sdk/keys/verify", { body: { key: "svc_live_x" } })).status, 200);
      assert.equal((await t.sdk("POST", "/v1/events", { body: event("e2", "bob"), as: other })).status, 202);
      assert.equal((await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation() } })).status, 200);
      const reports = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation() } });
      assert.equal(reports.status, 429, "violation reports are limited too, at the same rate");
      const stored = await t.client.execute("SELECT COUNT(*) AS n FROM cloud_events WHERE event_id = 'e2'");
      assert.equal(Number(stored.rows[0].n), 1, "the refused write stored nothing");
    } finally {
      await t.close();
    }
  });

  test("marks every non-GET SDK route but key verification and revocations as a project write", () => {
    const writes = cloudRoutes.filter((r) => r.limit === "projectWrites" || r.limit === "projectViolations")
      .map((r) => r.path + r.method).sort();
    // A revoke never waits behind the budget; the mirror draws from it in its run, unless it revokes.
    const exempt = ["verifyKey", "revokeKey", "revokeUserKeys", "mirrorKey"];
    const expected = cloudRoutes.filter((r) => r.auth === "sdk" && r.method !== "GET" && !exempt.includes(r.name!));
    assert.deepEqual(writes, expected.map((r) => r.path + r.method).sort());
    assert.equal(cloudRoutes.filter((r) => exempt.includes(r.name!)).length, exempt.length);
  });

  test("limits every agent route per key, not per project", () => {
    for (const route of cloudRoutes.filter((r) => r.auth === "agent")) {
      assert.equal(route.limit, "agentKey", `${route.method} ${route.path}`);
    }
  });

  test("a 429 from the cloud reaches the app as CLOUD_UNAVAILABLE, so the outbox retries instead of dropping", async () => {
    const t = await startTestCloud({ rateLimit: { perProject: { limit: 1, windowMs: 60_000 } } });
    const server = await listen(t.cloud.handle);
    try {
      const client = createCloudClient({ endpoint: server.url.replace("0.0.0.0", "127.0.0.1"), ...creds(t) });
      const report = () =>
        client.reportViolation(
          newViolation("FORBIDDEN_SCOPE", { keyId: crypto.randomUUID(), userId: null, message: "m" }),
        );
      await report();
      await assert.rejects(report(), (e: { code?: string }) => e.code === "CLOUD_UNAVAILABLE");
    } finally {
      await server.close();
      await t.close();
    }
  });
});

function creds(t: { project: { id: string; secret: string } }): { projectId: string; sdkSecret: string } {
  return { projectId: t.project.id, sdkSecret: t.project.secret };
}
