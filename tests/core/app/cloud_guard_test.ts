// @slow: real cloud servers on sockets, a fault proxy that stalls the link, a cloud stopped and started again
// The cloud link under faults, over real sockets: the staleness bound counts from the start of the last feed poll that
// completed, so a stalled link is refused once the bound has passed whatever the network does; the feed retries about
// once a second, so a cloud that is back is heard at once; an app that never reached its cloud, or whose credentials
// are refused, says so (GET /svc/health, the log every 30 s) and mints nothing; cloud.requireAtStart rejects `ready`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import type { Svc } from "../../../mod.ts";
import { createCloudWithSeams } from "../../../cloud/create_cloud.ts";
import { sleep } from "../../../core/retry/mod.ts";
import { asUser, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const BASE = "http://app.test";

/** `GET /svc/health`'s status and body. */
async function healthAnswer(svc: Svc): Promise<{ status: number; body: unknown }> {
  const res = await svc.handle(new Request(`${BASE}/svc/health`));
  return { status: res.status, body: await res.json() };
}

/** Runs notes.list with `key`: the status, the error code and Retry-After. */
async function runList(svc: Svc, key: string): Promise<{ status: number; code?: string; retryAfter: string | null }> {
  const res = await run(svc, key, "notes.list");
  const body = await res.json();
  return { status: res.status, code: body?.error?.code, retryAfter: res.headers.get("retry-after") };
}

/** A port on 127.0.0.1 that nothing listens on (a mistyped endpoint). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The longest retry delay the feed may schedule: its cap of about 1 s, times its jitter's 1.5 at most. */
const LONGEST_FEED_RETRY_MS = 1500;

const iso = (ms: number) => new Date(ms).toISOString();

describe("the staleness bound holds on a stalled link", () => {
  test("the first 503 comes once maxRevocationLagMs has passed since the start of the last completed poll; a key revoked during the stall is never served after the bound", async () => {
    const dir = tempDir("svc-guard-stall-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const proxy = await startFaultProxy(cloud.url);
    let now = Date.now();
    const logs: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      logger: (message) => logs.push(message),
      cloud: cloud.appConfig({ endpoint: proxy.url, maxRevocationLagMs: 2000 }),
    }, () => now);
    try {
      const doomed = await mint(svc, "alice", ["notes:read"]);
      const kept = await mint(svc, "alice", ["notes:read"]);
      assert.equal(await svc.sync(), 0, "both keys mirrored to the cloud");
      await waitFor("the feed followed", async () => (await svc.health()).revocationFeed!.connected);
      const heard = now; // every poll starts at the frozen clock

      proxy.setMode("stall"); // polls in flight hang, new ones too: none completes
      // Revoked at the cloud itself, not through the stalled link, before the app's clock moves.
      assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${doomed.id}`)).status, 200);

      now = heard + 2000; // the bound reached, not passed: still served
      assert.equal((await runList(svc, kept.key)).status, 200);
      now = heard + 2001;
      const stale = await runList(svc, kept.key);
      assert.deepEqual([stale.status, stale.code, stale.retryAfter], [503, "REVOCATION_FEED_STALE", "5"]);
      assert.equal((await runList(svc, doomed.key)).status, 503, "the revoked key is not served");
      assert.deepEqual(await healthAnswer(svc), { status: 503, body: { ok: false, mode: "hybrid", cloud: "stale" } });
      const refusing = logs.filter((m) => m.startsWith("REVOCATION_FEED_STALE since"));
      assert.equal(refusing.length, 1, logs.join("\n"));
      assert.ok(
        refusing[0].startsWith(
          `REVOCATION_FEED_STALE since ${iso(heard + 2000)}, last heard ${iso(heard)}, cloud ${proxy.url}`,
        ),
        refusing[0],
      );

      proxy.setMode("pass"); // the link heals: a poll completes, and the next one starts after the revoke
      const doomedAnswers: number[] = [];
      await waitFor("the revoked key refused with 401", async () => {
        const answer = await runList(svc, doomed.key);
        doomedAnswers.push(answer.status);
        return answer.status === 401;
      });
      assert.ok(doomedAnswers.every((s) => s === 503 || s === 401), `never served: ${doomedAnswers}`);
      assert.equal((await runList(svc, kept.key)).status, 200, "served again once a poll completed");
      assert.equal((await healthAnswer(svc)).status, 200);
      assert.equal(logs.filter((m) => m.startsWith("REVOCATION_FEED_STALE since")).length, 1);
      assert.equal(logs.filter((m) => m.startsWith("REVOCATION_FEED_STALE over")).length, 1, logs.join("\n"));
      await waitFor("a poll started after the stall heard", async () => {
        const feed = (await svc.health()).revocationFeed!;
        return feed.lastHeardAt === iso(heard + 2001) && feed.lagMs === 0;
      });
    } finally {
      await svc.close();
      await proxy.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("a healthy link is never stale", () => {
  test("the feed's long polls are held a quarter of maxRevocationLagMs at most (a poll counts from its start)", async () => {
    const dir = tempDir("svc-guard-hold-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    // The real fetch, watched: the wait each feed poll asks the cloud to hold it.
    const realFetch = globalThis.fetch;
    const waits: number[] = [];
    globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.pathname === "/v1/sdk/keys/revocations") waits.push(Number(url.searchParams.get("wait")));
      return realFetch(input, init);
    }) as typeof fetch;
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ maxRevocationLagMs: 2000 }),
    });
    try {
      await waitFor("three held polls", () => waits.filter((w) => w > 0).length >= 3);
      assert.ok(waits.every((w) => w <= 0.5), `waits: ${waits}`);
    } finally {
      await svc.close();
      globalThis.fetch = realFetch;
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("the feed reconnects at once when the cloud is back", () => {
  test("a key revoked while the cloud was down is refused after the restart, and the follower never schedules a retry above 1.5 s", async () => {
    const dir = tempDir("svc-guard-restart-");
    const dbUrl = `file:${dir.file("cloud.db")}`;
    const cloud = await startCloudServer(dbUrl);
    const delays: number[] = [];
    const svc = notesSvc(
      {
        mode: "hybrid",
        storage: `file:${dir.file("app.db")}`,
        // The outbox's own delays grow to 30 s; the feed's stay near 1 s.
        cloud: cloud.appConfig({ retryMinMs: 500, retryMaxMs: 30_000 }),
      },
      undefined,
      {
        sleep: (ms, signal) => {
          delays.push(ms);
          return sleep(Math.min(ms, 5), signal); // the scheduled delay is recorded; the test does not wait it out
        },
      },
    );
    try {
      const doomed = await mint(svc, "bob", ["notes:read"]);
      assert.equal(await svc.sync(), 0);
      await waitFor("the feed followed", async () => (await svc.health()).revocationFeed!.connected);
      assert.equal((await runList(svc, doomed.key)).status, 200);

      await cloud.stop();
      // A second cloud on the same database revokes the key while the first is down.
      const other = createCloudWithSeams({ db: dbUrl, logger: () => {} });
      await other.ready;
      const revoked = await other.handle(
        new Request(`http://cloud.test/v1/sdk/keys/${doomed.id}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${cloud.sdkSecret}`, "x-svc-project": cloud.projectId },
        }),
      );
      assert.equal(revoked.status, 200);
      await other.close();
      await waitFor("ten retries scheduled", () => delays.length >= 10);
      assert.ok(delays.every((ms) => ms <= LONGEST_FEED_RETRY_MS), `delays: ${delays.map(Math.round)}`);

      await cloud.start(); // the same port and database
      await waitFor("the revoked key refused", async () => (await runList(svc, doomed.key)).status === 401);
      assert.equal((await svc.health()).cloud, "following");
      assert.ok(delays.every((ms) => ms <= LONGEST_FEED_RETRY_MS), `delays: ${delays.map(Math.round)}`);
    } finally {
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("an app that cannot reach its cloud, or is refused by it, says so", () => {
  test("a mistyped endpoint: health says never_connected, and the error naming the endpoint repeats every 30 s of the app's clock", async () => {
    const dir = tempDir("svc-guard-never-");
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    let now = Date.now();
    const logs: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      logger: (message) => logs.push(message),
      cloud: { endpoint, projectId: "prj_typo", sdkSecret: "svcs_typo" },
    }, () => now);
    const loud = () => logs.filter((m) => m.startsWith("THIS APP HAS NEVER REACHED ITS CLOUD"));
    try {
      await waitFor("never_connected", async () => (await svc.health()).cloud === "never_connected");
      assert.equal(loud().length, 1, logs.join("\n"));
      assert.ok(loud()[0].includes(`at ${endpoint} `), loud()[0]);
      assert.ok(loud()[0].includes("Fix cloud.endpoint"), loud()[0]);
      now += 29_999;
      await svc.health();
      assert.equal(loud().length, 1, "not before 30 s");
      now += 1;
      await svc.health();
      assert.equal(loud().length, 2, "again at 30 s");
      now += 30_000;
      await svc.health();
      assert.equal(loud().length, 3, "and every 30 s");
      // Within the bound (10 minutes by default) the agent routes still serve: the health says so, and why.
      assert.deepEqual(await healthAnswer(svc), {
        status: 200,
        body: { ok: true, mode: "hybrid", cloud: "never_connected" },
      });
    } finally {
      await svc.close();
      dir.remove();
    }
  });

  test("a refused sdkSecret: health says refused, and POST /svc/keys answers 503 CLOUD_CREDENTIALS_REFUSED and stores nothing", async () => {
    const dir = tempDir("svc-guard-refused-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const proxy = await startFaultProxy(cloud.url);
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ endpoint: proxy.url, sdkSecret: `svcs_${"0".repeat(43)}` }),
    });
    try {
      await waitFor("refused", async () => (await svc.health()).cloud === "refused");
      assert.deepEqual(await healthAnswer(svc), { status: 503, body: { ok: false, mode: "hybrid", cloud: "refused" } });
      const minted = await asUser(svc, "carol", "POST", "/svc/keys", { name: "k", scopes: ["notes:read"] });
      assert.equal(minted.status, 503);
      assert.equal(minted.headers.get("retry-after"), "5");
      assert.equal((await minted.json()).error.code, "CLOUD_CREDENTIALS_REFUSED");
      assert.deepEqual((await (await asUser(svc, "carol", "GET", "/svc/keys")).json()).keys, [], "no key stored");
      assert.equal((await svc.health()).outbox, 0, "no mirror waiting");
    } finally {
      await svc.close();
      await proxy.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("GET /svc/health in local mode", () => {
  test("a local app has no cloud link to fail: 200 { ok: true, mode: local, cloud: null }", async () => {
    const svc = notesSvc();
    try {
      assert.deepEqual(await healthAnswer(svc), { status: 200, body: { ok: true, mode: "local", cloud: null } });
      const health = await svc.health();
      assert.deepEqual([health.ok, health.cloud], [true, null]);
    } finally {
      await svc.close();
    }
  });
});

describe("cloud.requireAtStart", () => {
  test("ready rejects, naming the endpoint, when the cloud cannot be reached or refuses the app; it resolves when the cloud answers", async () => {
    const dir = tempDir("svc-guard-require-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const endpoint = `http://127.0.0.1:${await closedPort()}`;
    const unreachable = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("a.db")}`,
      cloud: { endpoint, projectId: "prj_typo", sdkSecret: "svcs_typo", requireAtStart: true },
    });
    const refused = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("b.db")}`,
      cloud: cloud.appConfig({ sdkSecret: `svcs_${"0".repeat(43)}`, requireAtStart: true }),
    });
    const reached = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("c.db")}`,
      cloud: cloud.appConfig({ requireAtStart: true }),
    });
    try {
      await assert.rejects(unreachable.ready, (error: Error) => {
        assert.ok(error.message.includes(`the cloud at ${endpoint} could not be reached`), error.message);
        assert.ok(error.message.includes("check cloud.endpoint"), error.message);
        return true;
      });
      const answer = await asUser(unreachable, "dave", "POST", "/svc/keys", { name: "k", scopes: [] });
      assert.equal(answer.status, 503, "it does not serve");
      assert.equal((await answer.json()).error.code, "CLOUD_UNAVAILABLE");
      await assert.rejects(refused.ready, (error: Error) => {
        assert.ok(error.message.includes(`the cloud at ${cloud.url} refused this app's credentials`), error.message);
        return true;
      });
      await reached.ready;
      assert.equal((await healthAnswer(reached)).status, 200);
    } finally {
      await unreachable.close();
      await refused.close();
      await reached.close();
      await cloud.stop();
      dir.remove();
    }
  });
});
