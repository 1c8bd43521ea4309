import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Svc, withSvc } from "../../mod.ts";
import { AgentClient } from "../../core/agent/mod.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { type CloudServer, listen, mintOverHttp, startCloudServer } from "../fixtures/servers.ts";
import { keepPolicy } from "../fixtures/kept_policy.ts";
import type { RunningServer } from "../../core/http/mod.ts";
import { waitFor } from "../fixtures/wait_for.ts";

describe("hybrid mode, app and cloud as separate servers", () => {
  let dir: string;
  let cloud: CloudServer;
  let svc: Svc;
  let app: RunningServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "svc-hybrid-"));
    cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig({ retryMaxMs: 200 }),
    });
    await svc.ready;
    app = await listen(withSvc(svc));
  });
  after(async () => {
    await app.close();
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("uploads the manifest at start", async () => {
    const manifest = await waitFor("the manifest", async () => {
      const body = await (await cloud.sdk("GET", "/v1/sdk/intents")).json();
      return body.intents.length ? body : undefined;
    });
    assert.ok(manifest.intents.some((i: { name: string }) => i.name === "notes.create"));
    assert.deepEqual(manifest.scopes, ["notes:read", "notes:write", "admin"]);
  });

  test("runs the whole flow: mint, run, violation in the cloud, emit, poll with the agent client, ack", async () => {
    const minted = await mintOverHttp(app.url, "alice", ["notes:read"]);
    const agent = new AgentClient({ key: minted.key, appUrl: app.url, cloudUrl: cloud.url });
    assert.deepEqual(await agent.run("notes.list"), { notes: ["a", "b"] });

    await assert.rejects(agent.run("notes.create", { title: "x" }), { code: "FORBIDDEN_SCOPE" });
    assert.equal(await svc.sync(), 0, "the key and the violation reached the cloud");
    const { violations, total } = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${minted.id}`)).json();
    assert.equal(total, 1);
    assert.equal(violations[0].kind, "FORBIDDEN_SCOPE");
    assert.equal(violations[0].userId, "alice");

    const first = await svc.emit({ type: "note.shared", agentId: minted.agentId, payload: { title: "hello" } });
    assert.equal(first.duplicate, false);
    const again = await svc.emit({ type: "note.shared", agentId: "alice", payload: {}, eventId: first.eventId });
    assert.equal(again.duplicate, true, "a retried emit is not delivered twice");

    const stop = new AbortController();
    const seen = [];
    for await (const item of agent.inbox({ signal: stop.signal, wait: 1 })) {
      seen.push(item);
      stop.abort();
    }
    assert.equal(seen.length, 1);
    assert.equal(seen[0].eventId, first.eventId);
    assert.deepEqual(seen[0].payload, { title: "hello" });
    assert.deepEqual((await agent.poll()).items, [], "the item was acknowledged");
  });

  test("emitMany stores a batch in one request", async () => {
    const results = await svc.emitMany([
      { type: "a", agentId: "bob", payload: { n: 1 } },
      { type: "b", agentId: "bob", payload: { n: 2 } },
    ]);
    assert.equal(results.length, 2);
    assert.ok(results[1].inboxId > results[0].inboxId);
  });

  test("keeps serving agents while the cloud is down and catches up when it returns", async () => {
    const kept = await mintOverHttp(app.url, "carol", ["notes:read"]);
    const doomed = await mintOverHttp(app.url, "carol", ["notes:read"]);
    assert.equal(await svc.sync(), 0);
    const keptAgent = new AgentClient({ key: kept.key, appUrl: app.url, cloudUrl: cloud.url });
    const doomedAgent = new AgentClient({ key: doomed.key, appUrl: app.url, cloudUrl: cloud.url });
    assert.deepEqual((await doomedAgent.poll()).items, [], "the cloud knows the mirrored key");

    await cloud.stop();
    assert.deepEqual(await keptAgent.run("notes.list"), { notes: ["a", "b"] }, "runs do not need the cloud");
    const revoked = await fetch(`${app.url}/svc/keys/${doomed.id}`, {
      method: "DELETE",
      headers: { "x-user": "carol" },
    });
    assert.equal(revoked.status, 200, "revoking does not need the cloud");
    const late = await mintOverHttp(app.url, "carol", ["notes:read"]);
    await assert.rejects(keptAgent.run("admin.wipe", { confirm: true }), { code: "FORBIDDEN_SCOPE" });
    assert.ok(await svc.sync() >= 3, "the revoke, the new key and the violation wait in the outbox");

    await cloud.start();
    assert.equal(await svc.sync(), 0, "the outbox drained");
    await assert.rejects(doomedAgent.poll(), { code: "UNAUTHORIZED" }, "the cloud enforces the revoke made while down");
    const lateAgent = new AgentClient({ key: late.key, cloudUrl: cloud.url });
    assert.deepEqual((await lateAgent.poll()).items, [], "the key minted while down works at the cloud");
    const { violations } = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${kept.id}`)).json();
    assert.equal(violations[0].intent, "admin.wipe");
  });
});

describe("hybrid mode across a restart of the app", () => {
  test("keeps what waits for the cloud in storage, and sends it after a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-outbox-"));
    const cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    const config = {
      mode: "hybrid" as const,
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig(),
    };
    try {
      await cloud.stop();
      await keepPolicy(config.storage); // read on an earlier run: it mints while the cloud is down
      const first = notesSvc(config);
      const app = await listen(withSvc(first));
      const minted = await mintOverHttp(app.url, "dave", []);
      assert.equal(await first.sync(), 1);
      await app.close();
      await first.close();

      await cloud.start();
      const second = notesSvc(config);
      await second.ready;
      assert.equal(await second.sync(), 0);
      const agent = new AgentClient({ key: minted.key, cloudUrl: cloud.url });
      assert.deepEqual((await agent.poll()).items, [], "the key queued before the restart reached the cloud");
      await second.close();
    } finally {
      await cloud.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("reports a refused sdkSecret once, loudly, and keeps serving", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-badsecret-"));
    const cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
    const logs: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${join(dir, "app.db")}`,
      logger: (message) => logs.push(message),
      cloud: cloud.appConfig({ sdkSecret: "svcs_wrong", retryMinMs: 10, retryMaxMs: 20 }),
    });
    try {
      await svc.ready;
      await waitFor("the warning", () => logs.length > 0);
      const seen = cloud.requests;
      await waitFor("several more refused retries", () => cloud.requests >= seen + 5);
      assert.equal(logs.filter((m) => m.includes("REFUSED")).length, 1);
      const res = await svc.handle(new Request("http://x/svc/keys", { headers: { "x-user": "erin" } }));
      assert.equal(res.status, 200);
    } finally {
      await svc.close();
      await cloud.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("refuses emit in local mode with a clear error", async () => {
    const svc = notesSvc();
    await assert.rejects(svc.emit({ type: "t", agentId: "a", payload: {} }), /emit needs the cloud/);
    await svc.close();
  });
});
