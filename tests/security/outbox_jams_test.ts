// Issue 13, finding 1: nothing an agent sends can jam the hybrid outbox. A
// proxy between the app and the cloud that refuses violation reports (an HTML
// 413, as nginx answers over its body limit) or fails on them must never hold
// back a key's revocation; violations are cut to the cloud's limits when they
// are made, set aside only when refused (never for failing), and sent in batches.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCloudClient, isTransient } from "../../core/cloud_link/mod.ts";
import { openAppStorage } from "../../core/app/storage/mod.ts";
import { mintAgentKey } from "../../core/contract/mod.ts";
import { newViolation, violationReportSchema } from "../../core/contract/mod.ts";
import type { RunningServer } from "../../core/http/mod.ts";
import type { Svc } from "../../mod.ts";
import { mint, notesSvc, run, SCOPES } from "../fixtures/notes_svc.ts";
import { listen } from "../fixtures/servers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";

/** What the proxy does to `POST /v1/sdk/violations` and `POST /v1/sdk/violations/batch`. */
type ViolationPolicy = "pass" | "html413" | "fail500";

interface Proxy {
  server: RunningServer;
  policy: ViolationPolicy;
  violationPosts: number;
}

/** A reverse proxy on a real socket in front of the cloud's handler, counting violation reports. */
async function startProxy(t: TestCloud): Promise<Proxy> {
  const proxy = { policy: "pass", violationPosts: 0 } as Proxy;
  proxy.server = await listen((req) => {
    const url = new URL(req.url);
    if (req.method === "POST" && ["/v1/sdk/violations", "/v1/sdk/violations/batch"].includes(url.pathname)) {
      proxy.violationPosts++;
      if (proxy.policy === "html413") {
        return Promise.resolve(
          new Response("<html><body><h1>413 Request Entity Too Large</h1></body></html>", {
            status: 413,
            headers: { "content-type": "text/html" },
          }),
        );
      }
      if (proxy.policy === "fail500") return Promise.resolve(new Response("upstream error", { status: 500 }));
    }
    return t.cloud.handle(new Request(`http://cloud.test${url.pathname}${url.search}`, req));
  });
  return proxy;
}

describe("the hybrid outbox behind a proxy", () => {
  let t: TestCloud;
  let proxy: Proxy;
  let svc: Svc;
  const dir = tempDir("svc-outbox-");
  const logged: string[] = [];

  before(async () => {
    t = await startTestCloud();
    proxy = await startProxy(t);
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: {
        endpoint: proxy.server.url,
        projectId: t.project.id,
        sdkSecret: t.project.secret,
        retryMinMs: 5,
        retryMaxMs: 5,
      },
      logger: (message) => logged.push(message),
      activity: false, // violations alone in the outbox: what these tests count
    });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await proxy.server.close();
    await t.close();
    dir.remove();
  });

  test("an HTML 413 for a violation never holds back the revocation of the key that caused it", async () => {
    const a = await mint(svc, "alice", ["notes:read"]);
    assert.equal(await svc.sync(), 0);
    assert.equal((await t.agent(a.key, "GET", "/v1/agent/inbox")).status, 200, "the cloud knows the key");
    proxy.policy = "html413";
    assert.equal((await run(svc, a.key, "notes.create", { title: "x" })).status, 403);
    await svc.violations(); // the violation is queued for the cloud
    const revoked = await svc.handle(
      new Request(`http://app.test/svc/keys/${a.id}`, { method: "DELETE", headers: { "x-user": "alice" } }),
    );
    assert.equal(revoked.status, 200);
    assert.equal(await svc.sync(), 0, "nothing waits behind the refused report");
    assert.equal((await t.agent(a.key, "GET", "/v1/agent/inbox")).status, 401, "the cloud knows of the revocation");
    assert.ok(logged.some((line) => line.includes("refused")), "the refusal is logged");
    proxy.policy = "pass";
  });

  test("a violation that keeps failing with 5xx is never set aside, key mirrors still go first, and it lands later", async () => {
    const b = await mint(svc, "bob", ["notes:read"]);
    assert.equal(await svc.sync(), 0);
    assert.equal((await t.agent(b.key, "GET", "/v1/agent/inbox")).status, 200, "the cloud knows the key");
    proxy.policy = "fail500";
    assert.equal((await run(svc, b.key, "notes.create", { title: "x" })).status, 403);
    await svc.violations();
    const revoked = await svc.handle(
      new Request(`http://app.test/svc/keys/${b.id}`, { method: "DELETE", headers: { "x-user": "bob" } }),
    );
    assert.equal(revoked.status, 200);
    await svc.sync();
    assert.equal((await t.agent(b.key, "GET", "/v1/agent/inbox")).status, 401, "the revoke overtook the violation");
    const setAsideBefore = (await svc.health()).outboxSetAside.count;
    for (let i = 0; i < 30; i++) assert.equal(await svc.sync(), 1, "a 5xx never sets the report aside");
    proxy.policy = "pass";
    assert.equal(await svc.sync(), 0, "delivered once the cloud answers");
    assert.equal((await svc.health()).outboxSetAside.count, setAsideBefore);
  });

  test("reports many violations in a few batched requests", async () => {
    // One refusal for each of 120 keys: repeats of one key and kind would be coalesced into one row.
    const keys = [];
    for (let i = 0; i < 120; i++) keys.push(await mint(svc, `carol${i}`, ["notes:read"]));
    await svc.sync();
    const posts = proxy.violationPosts;
    for (const c of keys) await run(svc, c.key, "nothing.here");
    await svc.violations();
    assert.equal(await svc.sync(), 0);
    const sent = proxy.violationPosts - posts;
    assert.ok(sent >= 1 && sent <= 3, `${sent} requests for 120 violations`);
    const listed = await t.sdk("GET", "/v1/sdk/violations?kind=UNKNOWN_INTENT&limit=200");
    assert.equal(listed.body.total, 120);
  });
});

describe("what an earlier run left set aside in the outbox", () => {
  test("is deleted after 7 days and logged, while a key mirror that failed often still waits", async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const dir = tempDir("svc-setaside-");
    const file = dir.file("app.db");
    const logged: string[] = [];
    try {
      const storage = await openAppStorage(`file:${file}`);
      const { record } = await mintAgentKey("alice", { name: "k", scopes: [], agentId: "alice" });
      await storage.insertKey(record, "user", { mirror: true });
      const reports = [8, 9, 1].map((daysAgo) => ({
        ...newViolation("FORBIDDEN_SCOPE", { keyId: record.id, userId: "alice", message: "refused" }),
        createdAt: new Date(Date.now() - daysAgo * DAY).toISOString(),
      }));
      await storage.insertViolations(reports, { mirror: true });
      const head = await storage.outboxHead(100);
      for (let i = 0; i < 12; i++) await storage.outboxFailed([head[0].seq]); // the key's mirror: transient failures
      await storage.outboxSetAside(head.slice(1).map((i) => i.seq), "VALIDATION_ERROR: Invalid request");
      await storage.close();

      const svc = notesSvc({
        mode: "hybrid",
        storage: `file:${file}`,
        cloud: { endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x", retryMinMs: 60_000 },
        logger: (message) => logged.push(message),
      });
      await svc.ready;
      await svc.close(); // waits for the purge made at start

      const after = await openAppStorage(`file:${file}`);
      const refs = (await after.outboxHead(100)).map((i) => i.ref);
      const setAside = await after.outboxSetAsideByReason();
      await after.close();
      assert.deepEqual(refs, [record.id], "the key mirror waits, however often it failed");
      assert.deepEqual(
        setAside,
        [{ reason: "VALIDATION_ERROR: Invalid request", count: 1 }],
        "the recent report stays",
      );
      assert.ok(
        logged.some((l) => l.startsWith("2 violation reports the cloud refused were deleted")),
        logged.join("\n"),
      );
    } finally {
      dir.remove();
    }
  });
});

describe("a violation made from hostile input", () => {
  test("fits the cloud's limits whatever the agent sent", () => {
    const huge = "x".repeat(2_000_000);
    const v = newViolation("UNKNOWN_INTENT", {
      keyId: crypto.randomUUID(),
      userId: "alice",
      intent: `${huge}\u0000\ud800`,
      message: `Unknown intent "${huge}"`,
      metadata: { details: { echo: huge, deep: JSON.parse("[".repeat(50) + "]".repeat(50)) } },
    });
    const report = {
      apiKeyId: v.keyId,
      userId: v.userId,
      intent: v.intent,
      kind: v.kind,
      severity: v.severity,
      message: v.message,
      metadata: v.metadata,
      at: v.createdAt,
    };
    const parsed = violationReportSchema.safeParse({ violation: report });
    assert.ok(parsed.success, JSON.stringify(parsed.error?.issues.slice(0, 3)));
    assert.ok(v.intent!.startsWith("xxx"));
    assert.ok(JSON.stringify(v).length < 40_000);
  });
});

describe("which cloud failures are transient", () => {
  let server: RunningServer;
  before(async () => {
    server = await listen((req) => {
      const status = Number(new URL(req.url).searchParams.get("status"));
      const envelope = new URL(req.url).searchParams.get("envelope") === "1";
      return Promise.resolve(
        envelope
          ? Response.json({ ok: false, error: { code: "VALIDATION_ERROR", message: "no" } }, { status })
          : new Response("<html>nope</html>", { status, headers: { "content-type": "text/html" } }),
      );
    });
  });
  after(() => server.close());

  async function failure(status: number, envelope = false): Promise<unknown> {
    const client = createCloudClient({
      endpoint: `${server.url}/?status=${status}&envelope=${envelope ? 1 : 0}&x=`,
      projectId: "prj_x",
      sdkSecret: "svcs_x",
    });
    try {
      await client.putManifest([], SCOPES);
    } catch (error) {
      return error;
    }
    throw new Error("no failure");
  }

  test("network errors, 5xx, 408 and 429 are transient", async () => {
    for (const status of [500, 502, 503, 504, 408, 429]) assert.ok(isTransient(await failure(status)), `${status}`);
    const unreachable = createCloudClient({ endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x" });
    assert.ok(isTransient(await unreachable.putManifest([], SCOPES).catch((e) => e)));
  });

  test("every other 4xx is permanent, with or without the envelope", async () => {
    for (const status of [400, 403, 404, 405, 413, 422]) {
      assert.equal(isTransient(await failure(status)), false, `${status} without the envelope`);
    }
    assert.equal(isTransient(await failure(400, true)), false, "400 with the envelope");
  });
});
