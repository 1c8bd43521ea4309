// @slow: a cloud on a real socket behind a TCP proxy that loses answers and refuses connections, and a killed app
// process.
// Issue 33: nothing lost, nothing counted twice between the app and the cloud. A report retried after a lost answer
// is stored once (no wrongful auto-revoke); a long outage sets nothing aside; only a refusal does, and it is counted
// with its reason; repeats counted in memory survive a `kill -9`; `emit` without an eventId delivers once through
// lost answers; an audit entry keeps the time of the app's action.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { createClient } from "@libsql/client";
import type { RunningServer } from "../../../core/http/mod.ts";
import { type FaultProxy, startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { asUser, mint, notesSvc, run } from "../../fixtures/notes_svc.ts";
import { type CloudServer, listen, startCloudServer } from "../../fixtures/servers.ts";
import { start } from "../../fixtures/subprocess.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

/** The project's violations of a key, as the cloud lists them. */
async function violationsAtCloud(cloud: CloudServer, keyId: string): Promise<{ total: number; kinds: string[] }> {
  const page = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${keyId}&limit=200`)).json();
  return { total: page.total, kinds: page.violations.map((v: { kind: string }) => v.kind) };
}

/** Whether the cloud has the key revoked. */
async function revokedAtCloud(cloud: CloudServer, userId: string, keyId: string): Promise<boolean> {
  const { keys } = await (await cloud.sdk("GET", `/v1/sdk/keys?userId=${userId}`)).json();
  return keys.find((k: { id: string }) => k.id === keyId).revokedAt !== null;
}

describe("the outbox through a link that fails", () => {
  const dir = tempDir("svc-outbox-faults-");
  let cloud: CloudServer;
  let proxy: FaultProxy;
  /** The cloud's clock when a test sets it, else the wall clock. */
  let cloudAt: number | undefined;

  before(async () => {
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`, { now: () => cloudAt ?? Date.now() });
    proxy = await startFaultProxy(cloud.url);
  });
  after(async () => {
    await proxy.close();
    await cloud.stop();
    dir.remove();
  });

  test("answers lost for a while: 2 refusals are stored exactly twice and a threshold of 3 revokes nothing", async () => {
    const policy = { autoRevoke: { threshold: 3, windowMinutes: 60, kinds: ["FORBIDDEN_SCOPE"] } };
    assert.equal((await cloud.sdk("PUT", "/v1/sdk/policy", policy)).status, 200);
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("lost.db")}`,
      cloud: { ...cloud.appConfig({ endpoint: proxy.url }), timeoutMs: 300 },
    });
    try {
      await waitFor("the app to follow the policy", async () => (await svc.health()).autoRevoke !== null);
      const k = await mint(svc, "ann", ["notes:read"]);
      await waitFor("the key mirrored", async () => await svc.sync() === 0);
      proxy.setMode("drop-replies");
      const before = cloud.requests;
      for (let i = 0; i < 2; i++) assert.equal((await run(svc, k.key, "notes.create", { title: "x" })).status, 403);
      await svc.violations(); // both stored at the app and queued
      await waitFor("several tries to reach the cloud", () => cloud.requests - before >= 6);
      proxy.setMode("pass");
      // A try through the healed link can still outlast its 300 ms on a loaded machine (stored, its answer late):
      // synced until nothing waits, each retry one more chance for a report to be stored twice.
      await waitFor("the outbox to empty", async () => await svc.sync() === 0);
      assert.deepEqual(await violationsAtCloud(cloud, k.id), {
        total: 2,
        kinds: ["FORBIDDEN_SCOPE", "FORBIDDEN_SCOPE"],
      });
      assert.equal(await revokedAtCloud(cloud, "ann", k.id), false, "no retry counted toward the policy");
    } finally {
      proxy.setMode("pass");
      await svc.close();
      await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: null });
    }
  });

  test("a long outage: far more than 10 failed tries set nothing aside, and every report lands afterwards", async () => {
    const file = dir.file("outage.db");
    // Short delays stand in for a long outage: what counts is the number of failed tries, not their duration. A
    // reset fails a try at once, so no short timeout: 300 ms could fail the first read of the key policy on a loaded
    // machine (then every mint answers 503 until the next read, 5 s later) or a try once the link is healed.
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${file}`,
      cloud: { ...cloud.appConfig({ endpoint: proxy.url }), retryMinMs: 1, retryMaxMs: 5 },
      activity: false, // violation reports alone in the outbox: what this test counts
    });
    const db = createClient({ url: `file:${file}` }); // the outbox's own count of failed tries
    try {
      const keys = [];
      for (let i = 0; i < 10; i++) keys.push(await mint(svc, `bea${i}`, ["notes:read"]));
      assert.equal(await svc.sync(), 0);
      proxy.setMode("reset");
      for (const k of keys) assert.equal((await run(svc, k.key, "notes.create", { title: "x" })).status, 403);
      await svc.violations();
      await waitFor("every report to have failed 30 times", async () => {
        const rs = await db.execute(
          "SELECT COUNT(*) AS n, MIN(attempts) AS least FROM app_outbox WHERE kind = 'violation'",
        );
        return Number(rs.rows[0].n) === 10 && Number(rs.rows[0].least) >= 30;
      });
      const during = await svc.health();
      proxy.setMode("pass");
      assert.equal(await svc.sync(), 0);
      for (const k of keys) {
        assert.deepEqual(await violationsAtCloud(cloud, k.id), { total: 1, kinds: ["FORBIDDEN_SCOPE"] });
      }
      assert.equal(during.outbox, 10, "all 10 reports waited");
      assert.deepEqual(during.outboxSetAside, { count: 0, reasons: [] }, "none was set aside for failing");
    } finally {
      proxy.setMode("pass");
      db.close();
      await svc.close();
    }
  });

  test("a revoke made at the app during an outage is audited at the app's time, received later", async () => {
    let appAt = Date.parse("2026-03-01T11:34:00.000Z");
    cloudAt = appAt;
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("audit.db")}`,
      cloud: cloud.appConfig({ endpoint: proxy.url }),
    }, () => appAt);
    try {
      const k = await mint(svc, "cid", ["notes:read"]);
      assert.equal(await svc.sync(), 0);
      proxy.setMode("reset");
      appAt += 24_000; // 11:34:24 at the app
      assert.equal((await asUser(svc, "cid", "DELETE", `/svc/keys/${k.id}`)).status, 200);
      assert.ok(await svc.sync() > 0, "the revoke waits in the outbox");
      cloudAt = Date.parse("2026-03-01T11:44:28.000Z"); // delivered ten minutes later
      proxy.setMode("pass");
      assert.equal(await svc.sync(), 0);
      const { entries } = await (await cloud.sdk("GET", `/v1/sdk/audit?key=${k.id}&action=key.revoke`)).json();
      assert.equal(entries.length, 1);
      assert.equal(entries[0].createdAt, "2026-03-01T11:34:24.000Z", "when the user revoked it");
      assert.equal(entries[0].receivedAt, "2026-03-01T11:44:28.000Z", "when the cloud heard of it");
    } finally {
      proxy.setMode("pass");
      cloudAt = undefined;
      await svc.close();
    }
  });

  test("emit without an eventId through lost answers queues one inbox item", async () => {
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("emit.db")}`,
      cloud: { ...cloud.appConfig({ endpoint: proxy.url }), timeoutMs: 1000 },
    });
    try {
      // The 1 s timeout is for the lost answers below; on a loaded machine the first read of the key policy, or a
      // mirror's try, can outlast it too: mint once the policy is read (re-read every 5 s), sync until nothing waits.
      const k = await waitFor(
        "a key, once the key policy is read",
        () => mint(svc, "dan", ["notes:read"]).catch(() => null),
      );
      await waitFor("the key mirrored", async () => await svc.sync() === 0);
      const inbox = async () => {
        const res = await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${k.key}` } });
        return (await res.json()).items as { eventId: string }[];
      };
      proxy.setMode("drop-replies");
      const event = { type: "note.shared", agentId: k.agentId, payload: { noteId: "n1" } };
      // The caller retries a failed emit with the same event, as the docs tell it to.
      const emitting = svc.emit(event).catch(() => svc.emit(event));
      await waitFor("the event to reach the cloud", async () => (await inbox()).length > 0);
      proxy.setMode("pass");
      const result = await emitting;
      const items = await inbox();
      assert.equal(items.length, 1, "one inbox item");
      assert.equal(items[0].eventId, result.eventId);
      assert.equal(result.duplicate, true, "the retry that got an answer was the duplicate of the first try");
    } finally {
      proxy.setMode("pass");
      await svc.close();
    }
  });

  test("emit that never reaches the cloud throws with the eventId it minted, and a retry with it delivers once", async () => {
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("emit-down.db")}`,
      cloud: { ...cloud.appConfig({ endpoint: proxy.url }), retryMinMs: 1 },
    });
    try {
      const k = await mint(svc, "fay", ["notes:read"]);
      assert.equal(await svc.sync(), 0);
      proxy.setMode("reset");
      const event = { type: "note.shared", agentId: k.agentId, payload: {} };
      const error = await svc.emit(event).then(() => null, (e) => e);
      assert.equal(error?.code, "CLOUD_UNAVAILABLE");
      const [eventId] = error.details.eventIds;
      assert.equal(typeof eventId, "string");
      proxy.setMode("pass");
      const first = await svc.emit({ ...event, eventId });
      const again = await svc.emit({ ...event, eventId });
      assert.deepEqual([first.duplicate, again.duplicate, again.inboxId], [false, true, first.inboxId]);
    } finally {
      proxy.setMode("pass");
      await svc.close();
    }
  });
});

describe("a refusal no retry can change", () => {
  test("sets the report aside, counted with its reason in health() and logged by sync()", async () => {
    const dir = tempDir("svc-outbox-refused-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    let refuse = true;
    // In front of the cloud: violation reports are refused with the contract's 400, everything else passes.
    const gate: RunningServer = await listen(async (req) => {
      const url = new URL(req.url);
      if (refuse && url.pathname.startsWith("/v1/sdk/violations")) {
        const error = { code: "VALIDATION_ERROR", message: "Invalid request" };
        return Response.json({ ok: false, error }, { status: 400 });
      }
      return await fetch(cloud.url + url.pathname + url.search, {
        method: req.method,
        headers: req.headers,
        body: req.body === null ? undefined : await req.text(),
      });
    });
    const logged: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ endpoint: gate.url }),
      logger: (message) => logged.push(message),
      activity: false, // violation reports alone in the outbox: what this test counts
    });
    try {
      const k = await mint(svc, "eve", ["notes:read"]);
      assert.equal((await run(svc, k.key, "notes.create", { title: "x" })).status, 403);
      assert.equal(await svc.sync(), 0, "the refused report no longer waits");
      const { outboxSetAside } = await svc.health();
      assert.deepEqual(outboxSetAside, {
        count: 1,
        reasons: [{ reason: "VALIDATION_ERROR: Invalid request", count: 1 }],
      });
      assert.ok(logged.some((l) => l.startsWith("1 outbox items are set aside") && l.includes("VALIDATION_ERROR")));
      assert.ok(logged.some((l) => l.includes("it is set aside and will not be retried")));
      refuse = false;
      assert.equal(await svc.sync(), 0);
      assert.equal((await violationsAtCloud(cloud, k.id)).total, 0, "never sent again");
      assert.equal(await revokedAtCloud(cloud, "eve", k.id), false);
    } finally {
      await svc.close();
      await gate.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("repeats counted in memory", () => {
  test("reach storage within a second: kill -9 after 50 refusals leaves the 50 recorded", async () => {
    const dir = tempDir("svc-killed-app-");
    const url = `file:${dir.file("app.db")}`;
    const script = fileURLToPath(new URL("../../fixtures/refusing_app_process.ts", import.meta.url));
    const command = "Deno" in globalThis
      ? [process.execPath, "run", "-A", script, url]
      : [process.execPath, script, url];
    const child = start(command, dir.path);
    const exited = new Promise((resolve) => child.on("close", resolve));
    let db: ReturnType<typeof createClient> | undefined;
    try {
      let printed = "";
      child.stdout!.on("data", (d) => printed += d);
      child.stderr!.resume(); // read, so the pipe never fills
      const { url: app, key } = await waitFor("the app to listen", () => {
        const line = printed.split("\n").find((l) => l.startsWith("{"));
        return line === undefined ? undefined : JSON.parse(line) as { url: string; key: string };
      });
      for (let i = 0; i < 50; i++) {
        const res = await fetch(`${app}/svc/agent/run`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ intent: "notes.list" }),
        });
        assert.equal(res.status, 401);
        await res.body?.cancel();
      }
      db = createClient({ url }); // the app's file, read from this process
      const recorded = async () => {
        const rs = await db!.execute("SELECT metadata FROM app_violations WHERE kind = 'REVOKED_KEY'");
        // A refusal's own row counts 1; a summary row counts its repeats.
        return rs.rows.reduce((n, r) => n + Number(JSON.parse(String(r.metadata)).repeats ?? 1), 0);
      };
      await waitFor("the 50 refusals to be stored", async () => await recorded() === 50);
      child.kill("SIGKILL");
      await exited;
      assert.equal(await recorded(), 50, "the first refusal and 49 repeats, after kill -9");
    } finally {
      child.kill("SIGKILL");
      db?.close();
      dir.remove();
    }
  });
});
