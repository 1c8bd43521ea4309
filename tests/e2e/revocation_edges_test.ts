// @slow: real cloud servers on sockets, a secret rotation, a cloud stopped and started again
// Revocation at its edges, over real sockets: the project's auto-revoke policy applied by a hybrid app
// as the refusals happen; a rotated sdkSecret failing the agent routes closed until the app has the new
// one; a hybrid app that cannot read the feed refusing past `cloud.maxRevocationLagMs`.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createClient } from "@libsql/client";
import { type Svc, type SvcConfig, withSvc } from "../../mod.ts";
import { createSvcWith } from "../../core/app/create_svc.ts";
import { intents, notesSvc, SCOPES } from "../fixtures/notes_svc.ts";
import { type CloudServer, listen, mintOverHttp, startCloudServer } from "../fixtures/servers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { waitFor } from "../fixtures/wait_for.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import { rotateSdkSecret } from "../../cloud/projects/projects.ts";

/** Runs an intent at the app over HTTP; answers the status, the error code and Retry-After. */
async function runAt(
  appUrl: string,
  key: string,
  intent: string,
): Promise<{ status: number; code?: string; retryAfter: string | null }> {
  const res = await fetch(`${appUrl}/svc/agent/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent, payload: intent === "notes.create" ? { text: "x" } : undefined }),
  });
  const body = await res.json().catch(() => null);
  return { status: res.status, code: body?.error?.code, retryAfter: res.headers.get("retry-after") };
}

const connected = (svc: Svc) =>
  waitFor("the feed", async () => (await svc.health()).revocationFeed?.connected || undefined);

describe("the project's auto-revoke policy is applied by a hybrid app where the refusals happen", () => {
  test("a burst of forbidden calls against threshold 3: the call after the 3rd refusal is refused; the cloud revokes with reason auto", async () => {
    const dir = tempDir("svc-edges-auto-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const policy = { threshold: 3, windowMinutes: 10 };
    assert.equal((await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: policy })).status, 200);
    const svc = notesSvc({ mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: cloud.appConfig() });
    const app = await listen(withSvc(svc));
    try {
      await waitFor("the policy to be read", async () => (await svc.health()).autoRevoke);
      const minted = await mintOverHttp(app.url, "alice", ["notes:read"]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await runAt(app.url, minted.key, "notes.create")).status);
      assert.deepEqual(statuses, [403, 403, 403, 401, 401, 401], "refused from the 4th call on");
      const revocation = await waitFor("the cloud's revocation", async () => {
        const feed = await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json();
        return feed.revocations.find((r: { keyId: string }) => r.keyId === minted.id);
      });
      assert.equal(revocation.reason, "auto");
      const listed = await (await cloud.sdk("GET", `/v1/sdk/violations?keyId=${minted.id}`)).json();
      const auto = listed.violations.filter((v: { kind: string }) => v.kind === "AUTO_REVOKED");
      assert.equal(auto.length, 1, "one AUTO_REVOKED violation, recorded by the cloud");
      const audit = await (await cloud.sdk("GET", "/v1/sdk/audit?action=key.revoke")).json();
      const entries = audit.entries.filter((e: { target: string }) => e.target === minted.id);
      assert.deepEqual(
        entries.map((e: { actor: string; detail: { reason: string; count: number } }) => [e.actor, e.detail.reason]),
        [["system", "auto"]],
        "one audit entry, by system",
      );
      assert.equal(entries[0].detail.count, 3);
      await waitFor("the app's own store to hold the revoke", async () => {
        const keys = await (await fetch(`${app.url}/svc/keys`, { headers: { "x-user": "alice" } })).json();
        return keys.keys[0].revokedAt !== null;
      });
    } finally {
      await app.close();
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });

  test("a cloud-mode app refuses the key from the call after the 3rd forbidden one; the cloud revokes it with reason auto", async () => {
    const dir = tempDir("svc-edges-auto-cloud-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    assert.equal(
      (await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: { threshold: 3, windowMinutes: 10 } })).status,
      200,
    );
    const svc = notesSvc({ mode: "cloud", cloud: cloud.appConfig({ keyCacheTtlMs: 60_000 }) });
    const app = await listen(withSvc(svc));
    try {
      await waitFor("the policy to be read", async () => (await svc.health()).autoRevoke);
      const minted = await mintOverHttp(app.url, "dora", ["notes:read"]);
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await runAt(app.url, minted.key, "notes.create")).status);
      assert.deepEqual(statuses, [403, 403, 403, 401, 401, 401], "refused from the 4th call on");
      const revocation = await waitFor("the cloud's revocation", async () => {
        const feed = await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json();
        return feed.revocations.find((r: { keyId: string }) => r.keyId === minted.id);
      });
      assert.equal(revocation.reason, "auto");
    } finally {
      await app.close();
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });

  test("a policy changed at the cloud reaches a running app at its next read", async () => {
    const dir = tempDir("svc-edges-policy-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const config = { mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: cloud.appConfig() };
    const svc = createSvcWith(
      { userResolver: () => null, scopes: SCOPES, intents, logger: () => {}, ...config } as SvcConfig,
      { policyRefreshMs: 50 },
    );
    try {
      await svc.ready;
      assert.equal(
        (await cloud.sdk("PUT", "/v1/sdk/policy", { autoRevoke: { threshold: 7, windowMinutes: 5 } })).status,
        200,
      );
      const read = await waitFor("the new policy", async () => (await svc.health()).autoRevoke);
      assert.deepEqual(read, { threshold: 7, windowMinutes: 5 });
    } finally {
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("a rotated sdkSecret fails the agent routes closed", () => {
  test("503 CLOUD_CREDENTIALS_REFUSED after a rotation made on the cloud's database (the bench measures the 5 s bound); serving again with the new secret", async () => {
    const dir = tempDir("svc-edges-rotate-");
    const cloudDb = `file:${dir.file("cloud.db")}`;
    const cloud: CloudServer = await startCloudServer(cloudDb);
    let secret = cloud.sdkSecret;
    const logs: string[] = [];
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      logger: (message) => logs.push(message),
      cloud: cloud.appConfig({ sdkSecret: () => secret }),
    });
    const app = await listen(withSvc(svc));
    try {
      const minted = await mintOverHttp(app.url, "bob", ["notes:read"]);
      await connected(svc);
      assert.equal((await runAt(app.url, minted.key, "notes.list")).status, 200);
      // Another client on the cloud's database, as `project rotate-secret` in another process would be.
      const client = createClient({ url: cloudDb });
      const rotated = await rotateSdkSecret(await openCloudStorage(client), cloud.projectId);
      client.close();
      // How soon is bench/revocation_edges_bench.ts's to measure (p99 < 5 s), not a test's: on a loaded machine a
      // wall-clock bound here would fail a working app.
      const refused = await waitFor("the agent routes to refuse", async () => {
        const answer = await runAt(app.url, minted.key, "notes.list");
        return answer.status === 503 ? answer : undefined;
      });
      assert.equal(refused.code, "CLOUD_CREDENTIALS_REFUSED");
      assert.equal(refused.retryAfter, "5");
      assert.equal((await svc.health()).credentials, "refused");
      // Another call (the outbox, the last-use sender) may meet the 401 before the feed's poll logs it.
      const said = () => logs.filter((m) => m.includes("Set the project's new sdkSecret")).length;
      await waitFor("the log to say what to do", () => said() > 0);
      assert.equal(said(), 1, "once a minute, not at every retry");
      secret = rotated!;
      await waitFor("serving again", async () => (await runAt(app.url, minted.key, "notes.list")).status === 200);
      assert.equal((await svc.health()).credentials, "ok");
    } finally {
      await app.close();
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("bounded staleness: cloud.maxRevocationLagMs", () => {
  test("a hybrid app that has not read the feed for longer answers 503 REVOCATION_FEED_STALE, and serves once caught up", async () => {
    const dir = tempDir("svc-edges-stale-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    let now = Date.now();
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ maxRevocationLagMs: 60_000 }),
    }, () => now);
    const app = await listen(withSvc(svc));
    try {
      const minted = await mintOverHttp(app.url, "carol", ["notes:read"]);
      await connected(svc);
      await cloud.stop();
      await waitFor("the feed to be lost", async () => !(await svc.health()).revocationFeed!.connected);
      now += 59_000;
      assert.equal((await runAt(app.url, minted.key, "notes.list")).status, 200, "within the bound");
      now += 2_000;
      const stale = await runAt(app.url, minted.key, "notes.list");
      assert.deepEqual([stale.status, stale.code, stale.retryAfter], [503, "REVOCATION_FEED_STALE", "5"]);
      await cloud.start(); // same port, same database
      await connected(svc);
      assert.equal((await runAt(app.url, minted.key, "notes.list")).status, 200, "caught up");
    } finally {
      await app.close();
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });
});

describe("what the cloud sees of a connected hybrid app", () => {
  test("a key used at a hybrid app shows its lastUsedAt at the cloud, and the app is listed as following", async () => {
    const dir = tempDir("svc-edges-used-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const svc = notesSvc({ mode: "hybrid", storage: `file:${dir.file("app.db")}`, cloud: cloud.appConfig() });
    const app = await listen(withSvc(svc));
    try {
      await connected(svc);
      const minted = await mintOverHttp(app.url, "alice", ["notes:read", "notes:write"]);
      const listedAtCloud = async () =>
        (await (await cloud.sdk("GET", "/v1/sdk/keys?userId=alice")).json()).keys.find((k: { id: string }) =>
          k.id === minted.id
        );
      await waitFor("the mirror of the new key", listedAtCloud);
      assert.equal((await listedAtCloud()).lastUsedAt, null, "never used yet");
      assert.equal((await runAt(app.url, minted.key, "notes.list")).status, 200);
      const used = await waitFor("the first use mirrored", async () => (await listedAtCloud()).lastUsedAt ?? undefined);
      assert.ok(!Number.isNaN(Date.parse(used)), used);
      const apps = await waitFor("the app listed", async () => {
        const listed = (await (await cloud.sdk("GET", "/v1/sdk/apps")).json()).apps;
        return listed.length > 0 ? listed : undefined;
      });
      assert.equal(apps.length, 1);
      assert.equal(apps[0].mode, "hybrid");
      assert.equal(apps[0].state, "following");
    } finally {
      await app.close();
      await svc.close();
      await cloud.stop();
      dir.remove();
    }
  });
});
