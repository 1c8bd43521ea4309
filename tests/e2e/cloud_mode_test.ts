import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Svc, withSvc } from "../../mod.ts";
import { AgentClient } from "../../core/agent/mod.ts";
import { errorOf, notesSvc } from "../fixtures/notes_svc.ts";
import { type CloudServer, listen, mintOverHttp, startCloudServer } from "../fixtures/servers.ts";
import type { RunningServer } from "../../core/http/mod.ts";

describe("cloud mode, app and cloud as separate servers", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;
  let app: RunningServer;
  /** The app's clock: a test moves it past the key cache's lifetime (100 ms) instead of waiting. */
  let now = Date.now();
  const mint = (user: string, scopes: string[]) => mintOverHttp(app.url, user, scopes);

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-cloudmode-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    svc = notesSvc({
      mode: "cloud",
      cloud: cloud.appConfig({ keyCacheTtlMs: 100 }),
    }, () => now);
    await svc.ready;
    app = await listen(withSvc(svc));
  });
  after(async () => {
    await app.close();
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("mints, lists and verifies keys through the cloud, keeping none in the app", async () => {
    const minted = await mint("alice", ["notes:read"]);
    const stored = await (await cloud.sdk("GET", "/v1/sdk/keys?userId=alice")).json();
    assert.deepEqual(stored.keys.map((k: { id: string }) => k.id), [minted.id]);
    const listed = await (await fetch(`${app.url}/svc/keys`, { headers: { "x-user": "alice" } })).json();
    assert.equal(listed.keys[0].id, minted.id);
    assert.ok(!JSON.stringify(listed).includes(minted.key));
    const agent = new AgentClient({ key: minted.key, appUrl: app.url, cloudUrl: cloud.url });
    assert.deepEqual(await agent.run("notes.list"), { notes: ["a", "b"] });
    assert.deepEqual((await agent.poll()).items, [], "the same key reads the inbox at the cloud");
  });

  test("refuses a key at once after a revoke made through the app", async () => {
    const minted = await mint("bob", ["notes:read"]);
    const agent = new AgentClient({ key: minted.key, appUrl: app.url });
    await agent.run("notes.list"); // cached now
    const res = await fetch(`${app.url}/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "bob" } });
    assert.equal(res.status, 200);
    await assert.rejects(agent.run("notes.list"), { code: "UNAUTHORIZED" });
  });

  test("has the cloud record REVOKED_KEY when a revoked key is used", async () => {
    const minted = await mint("grace", ["notes:read"]);
    await fetch(`${app.url}/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "grace" } });
    await assert.rejects(new AgentClient({ key: minted.key, appUrl: app.url }).run("notes.list"), {
      code: "UNAUTHORIZED",
    });
    const { violations } = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${minted.id}`)).json();
    assert.deepEqual(violations.map((v: { kind: string; severity: string }) => [v.kind, v.severity]), [
      ["REVOKED_KEY", "warning"],
    ]);
  });

  test("answers 404 when a user revokes another user's key, and the key keeps working", async () => {
    const minted = await mint("carol", ["notes:read"]);
    const res = await fetch(`${app.url}/svc/keys/${minted.id}`, { method: "DELETE", headers: { "x-user": "mallory" } });
    assert.equal(res.status, 404);
    assert.deepEqual(await new AgentClient({ key: minted.key, appUrl: app.url }).run("notes.list"), {
      notes: ["a", "b"],
    });
  });

  test("honours a revoke made in the cloud within the cache lifetime", async () => {
    const minted = await mint("dave", ["notes:read"]);
    const agent = new AgentClient({ key: minted.key, appUrl: app.url });
    await agent.run("notes.list");
    assert.equal((await cloud.sdk("DELETE", `/v1/sdk/keys/${minted.id}`)).status, 200);
    now += 150;
    await assert.rejects(agent.run("notes.list"), { code: "UNAUTHORIZED" });
  });

  test("reports violations to the cloud", async () => {
    const minted = await mint("erin", ["notes:read"]);
    await assert.rejects(new AgentClient({ key: minted.key, appUrl: app.url }).run("notes.create", { title: "t" }), {
      code: "FORBIDDEN_SCOPE",
    });
    assert.equal(await svc.sync(), 0);
    const { violations } = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${minted.id}`)).json();
    assert.equal(violations[0].kind, "FORBIDDEN_SCOPE");
  });

  test("fails closed with 503 CLOUD_UNAVAILABLE while the cloud is down, and recovers", async () => {
    const minted = await mint("frank", ["notes:read"]);
    await cloud.stop();
    now += 150; // past the cache lifetime
    const run = () =>
      fetch(`${app.url}/svc/agent/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${minted.key}`, "content-type": "application/json" },
        body: JSON.stringify({ intent: "notes.list" }),
      });
    const down = await run();
    assert.equal(down.status, 503);
    assert.ok(down.headers.get("retry-after"));
    assert.equal((await errorOf(down)).code, "CLOUD_UNAVAILABLE");
    const unknown = await fetch(`${app.url}/svc/agent/run`, {
      method: "POST",
      headers: { authorization: `Bearer svc_live_${"z".repeat(40)}`, "content-type": "application/json" },
      body: JSON.stringify({ intent: "notes.list" }),
    });
    assert.equal(unknown.status, 503, "no key is accepted without the cloud");
    const mintDown = await fetch(`${app.url}/svc/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user": "frank" },
      body: JSON.stringify({ name: "x", scopes: [] }),
    });
    assert.equal(mintDown.status, 503);
    await cloud.start();
    assert.equal((await run()).status, 200);
  });
});
