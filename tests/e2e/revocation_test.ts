// When a revocation takes effect, per mode, over real sockets: a revoke at the
// cloud reaching a hybrid app (connected, or down and restarted) and a
// cloud-mode app through the revocation feed; the app's own revoke and the
// feed not fighting; the feed's lag while the cloud is down.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Svc, withSvc } from "../../mod.ts";
import { mint, notesSvc, run } from "../fixtures/notes_svc.ts";
import { type CloudServer, listen, mintOverHttp, refusedSoon, startCloudServer } from "../fixtures/servers.ts";
import type { RunningServer } from "../../core/http/mod.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { startHranaServer } from "../fixtures/hrana_server.ts";
import { waitFor } from "../fixtures/wait_for.ts";
import { REMOTE_STALENESS_MS } from "../../core/db/mod.ts";

const until = waitFor;

const connected = (svc: Svc) =>
  until("the feed", async () => (await svc.health()).revocationFeed?.connected || undefined);

describe("a revoke at the cloud reaches a hybrid app through the revocation feed", () => {
  const dir = tempDir("svc-revocation-");
  let cloud: CloudServer;
  let svc: Svc;
  let app: RunningServer;
  const appDb = `file:${dir.file("app.db")}`;
  const config = () => ({ mode: "hybrid" as const, storage: appDb, cloud: cloud.appConfig() });

  before(async () => {
    cloud = await startCloudServer(`file:${join(dir.path, "cloud.db")}`);
    svc = notesSvc(config());
    await svc.ready;
    app = await listen(withSvc(svc));
  });
  after(async () => {
    await app.close();
    await svc.close();
    await cloud.stop();
    dir.remove();
  });

  test("a key revoked with DELETE /v1/sdk/keys/:id is refused at a connected hybrid app within the bound", async () => {
    const minted = await mintOverHttp(app.url, "alice", ["notes:read"]);
    assert.equal(await svc.sync(), 0, "the key reached the cloud");
    await connected(svc);
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.id}`)).status, 200);
    await refusedSoon(app.url, minted.key);
    const listed = await (await fetch(`${app.url}/svc/keys`, { headers: { "x-user": "alice" } })).json();
    assert.ok(listed.keys[0].revokedAt, "the app's own key store shows the revocation");
  });

  test("an app's own revoke is mirrored once: one feed row with reason app, and the app keeps its time", async () => {
    const minted = await mintOverHttp(app.url, "bob", ["notes:read"]);
    const res = await fetch(`${app.url}/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "bob" } });
    const { revokedAt } = await res.json();
    assert.equal(await svc.sync(), 0);
    const feed = await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json();
    const rows = feed.revocations.filter((r: { keyId: string }) => r.keyId === minted.id);
    assert.deepEqual(rows.map((r: { reason: string; revokedAt: string }) => [r.reason, r.revokedAt]), [[
      "app",
      revokedAt,
    ]]);
    await until(
      "the feed to pass the row",
      async () => (await svc.health()).revocationFeed!.cursor >= rows[0].seq || undefined,
    );
    const listed = await (await fetch(`${app.url}/svc/keys`, { headers: { "x-user": "bob" } })).json();
    assert.equal(listed.keys[0].revokedAt, revokedAt);
    assert.equal(await svc.sync(), 0, "applying the feed queued nothing back to the cloud");
  });

  test("a key revoked at the cloud while the hybrid app was down is refused after the app restarts", async () => {
    const minted = await mintOverHttp(app.url, "carol", ["notes:read"]);
    assert.equal(await svc.sync(), 0);
    await app.close();
    await svc.close();
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.id}`)).status, 200);
    svc = notesSvc(config());
    await svc.ready;
    app = await listen(withSvc(svc));
    await refusedSoon(app.url, minted.key);
  });

  test("resumes from the cursor stored in the app's database after a restart", async () => {
    await connected(svc);
    const before = (await svc.health()).revocationFeed!.cursor;
    assert.ok(before >= 2);
    await svc.close();
    await app.close();
    svc = notesSvc(config());
    app = await listen(withSvc(svc));
    const health = await svc.health();
    assert.ok(health.revocationFeed!.cursor >= before, "the cursor survived the restart");
  });
});

describe("a revoke at the cloud reaches a cloud-mode app through the revocation feed", () => {
  const dir = tempDir("svc-revocation-cloud-");
  let cloud: CloudServer;
  let svc: Svc;
  let app: RunningServer;

  before(async () => {
    cloud = await startCloudServer(`file:${join(dir.path, "cloud.db")}`);
    // A cache that would trust a verification for a minute: only the feed can end it sooner.
    svc = notesSvc({
      mode: "cloud",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ keyCacheTtlMs: 60_000 }),
    });
    await svc.ready;
    app = await listen(withSvc(svc));
  });
  after(async () => {
    await app.close();
    await svc.close();
    await cloud.stop();
    dir.remove();
  });

  test("a cached key revoked with DELETE /v1/sdk/keys/:id is refused at a connected cloud-mode app within the bound", async () => {
    const minted = await mintOverHttp(app.url, "dave", ["notes:read"]);
    const first = await fetch(`${app.url}/svc/agent/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${minted.key}`, "content-type": "application/json" },
      body: JSON.stringify({ intent: "notes.list" }),
    });
    assert.equal(first.status, 200, "verified and cached");
    await first.body?.cancel();
    await connected(svc);
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.id}`)).status, 200);
    await refusedSoon(app.url, minted.key);
  });
});

describe("while the cloud is down, the feed's lag shows in svc.health() and the log says so once", () => {
  test("reports connected, then a growing lag and a single log line while the cloud is down", async () => {
    const dir = tempDir("svc-revocation-lag-");
    const cloud = await startCloudServer(`file:${join(dir.path, "cloud.db")}`);
    const logs: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      logger: (message) => logs.push(message),
      cloud: cloud.appConfig({ retryMinMs: 10, retryMaxMs: 30 }),
    });
    try {
      await connected(svc);
      const following = await svc.health();
      assert.equal(following.cloud, "following");
      assert.notEqual(following.revocationFeed!.lastHeardAt, null, "the lag counts from the last completed poll");
      await cloud.stop();
      const lag = await until("a lag", async () => {
        const feed = (await svc.health()).revocationFeed!;
        return !feed.connected && feed.lagMs > 100 ? feed.lagMs : undefined;
      });
      assert.ok(lag > 100);
      // Several more retries (30 ms apart at most), as the app itself counts the time.
      await until("several more retries", async () => (await svc.health()).revocationFeed!.lagMs > lag + 200);
      assert.equal(logs.filter((m) => m.includes("revocation feed cannot be followed")).length, 1);
      await cloud.start();
      await svc.close(); // its endpoint moved with the restart; a fresh app follows the new one
    } finally {
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("when a revoke made through an app takes effect in other app processes", () => {
  test("a revoke through one app is refused by another app on the same database file at its next request", async () => {
    const dir = tempDir("svc-revocation-file-");
    const storage = `file:${dir.file("app.db")}`;
    const one = notesSvc({ storage });
    const two = notesSvc({ storage });
    try {
      const minted = await mint(one, "erin", ["notes:read"]);
      assert.equal((await run(two, minted.key, "notes.list")).status, 200);
      const res = await one.handle(
        new Request(`http://app.test/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "erin" } }),
      );
      assert.equal(res.status, 200);
      assert.equal((await run(two, minted.key, "notes.list")).status, 401);
    } finally {
      await one.close();
      await two.close();
      dir.remove();
    }
  });

  test("a revoke through one node is refused by another node on the same remote database within 1 s", async () => {
    const dir = tempDir("svc-revocation-remote-");
    const hrana = await startHranaServer(dir.file("remote.db"));
    const one = notesSvc({ storage: hrana.url });
    let now = Date.now(); // the other node's clock: the test moves it
    const two = notesSvc({ storage: hrana.url }, () => now);
    try {
      await two.ready;
      const opened = now; // its key cache's bound counts from here
      const minted = await mint(one, "frank", ["notes:read"]);
      assert.equal((await run(one, minted.key, "notes.list")).status, 200);
      assert.equal((await run(two, minted.key, "notes.list")).status, 200);
      const res = await one.handle(
        new Request(`http://app.test/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "frank" } }),
      );
      assert.equal(res.status, 200);
      assert.equal((await run(one, minted.key, "notes.list")).status, 401, "the node that revoked: at once");
      // Nothing tells the other node that the remote database changed: its cached key lives at most 1 s.
      now = opened + REMOTE_STALENESS_MS - 1;
      assert.equal((await run(two, minted.key, "notes.list")).status, 200, "served from its cache within the bound");
      now = opened + REMOTE_STALENESS_MS;
      assert.equal((await run(two, minted.key, "notes.list")).status, 401, "refused once the bound has passed");
    } finally {
      await one.close();
      await two.close();
      await hrana.close();
      dir.remove();
    }
  });
});
