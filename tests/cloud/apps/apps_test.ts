// Connected apps (GET /v1/sdk/apps): app instances identify themselves on their feed polls, over real
// sockets, on a real in-memory libSQL cloud with an injected clock.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createCloudWithSeams, waitingPolls } from "../../../cloud/create_cloud.ts";
import { deleteProject, rotateSdkSecret } from "../../../cloud/projects/projects.ts";
import { APP_RETENTION_MS } from "../../../cloud/apps/mod.ts";
import { listen } from "../../fixtures/servers.ts";
import { type Project, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const FEED = "/v1/sdk/keys/revocations";
const A = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A";
const B = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6B";

function identity(instance: string, label = "shop", mode = "hybrid"): Record<string, string> {
  return { "x-svc-instance": instance, "x-svc-app-label": label, "x-svc-mode": mode, "x-svc-sdk-version": "1.4.0" };
}

describe("GET /v1/sdk/apps", () => {
  let clock = Date.parse("2026-03-01T12:00:00.000Z");
  let t: TestCloud;
  let server: RunningServer;
  before(async () => {
    t = await startTestCloud({ now: () => clock });
    server = await listen(t.cloud.handle);
  });
  after(async () => {
    await server.close();
    await t.close();
  });

  /** A feed poll over the socket, as an app sends it. */
  async function poll(p: Project, headers: Record<string, string>, after = 0): Promise<number> {
    const res = await fetch(`${server.url}${FEED}?after=${after}`, {
      headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id, ...headers },
    });
    await res.body?.cancel();
    return res.status;
  }

  /** Gives the project's feed `n` revocations (a user's `n` keys, revoked at once). */
  async function revocations(p: Project, n: number): Promise<void> {
    for (let i = 0; i < n; i++) await t.mintKey("feed-user", {}, p);
    assert.equal((await t.sdk("DELETE", "/v1/sdk/keys?userId=feed-user", { as: p })).body.revoked, n);
  }

  async function apps(p: Project) {
    const res = await fetch(`${server.url}/v1/sdk/apps`, {
      headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id },
    });
    assert.equal(res.status, 200);
    return (await res.json()).apps;
  }

  test("lists two instances of one project apart, with what each said on its poll; another project sees none", async () => {
    const p = await t.newProject("two apps");
    const other = await t.newProject("other");
    await revocations(p, 4);
    assert.equal(await poll(p, identity(A, "shop web", "hybrid"), 4), 200);
    clock += 1000;
    assert.equal(await poll(p, identity(B, "shop worker", "cloud"), 0), 200);
    const listed = await apps(p);
    assert.deepEqual(listed, [
      {
        instanceId: B,
        label: "shop worker",
        mode: "cloud",
        sdkVersion: "1.4.0",
        firstSeenAt: new Date(clock).toISOString(),
        lastSeenAt: new Date(clock).toISOString(),
        cursor: 0,
        outboxDepth: null,
        state: "following",
      },
      {
        instanceId: A,
        label: "shop web",
        mode: "hybrid",
        sdkVersion: "1.4.0",
        firstSeenAt: new Date(clock - 1000).toISOString(),
        lastSeenAt: new Date(clock - 1000).toISOString(),
        cursor: 4,
        outboxDepth: null,
        state: "following",
      },
    ]);
    assert.deepEqual(await apps(other), []);
  });

  test("keeps the outbox depth an app reports on its polls (x-svc-outbox-depth); a count that is not one is null", async () => {
    const p = await t.newProject("outbox depth");
    assert.equal(await poll(p, { ...identity(A), "x-svc-outbox-depth": "12" }), 200);
    assert.equal(await poll(p, { ...identity(B), "x-svc-outbox-depth": "-3" }), 200);
    const depths = (list: { instanceId: string; outboxDepth: number | null }[]) =>
      Object.fromEntries(list.map((app) => [app.instanceId, app.outboxDepth]));
    assert.deepEqual(depths(await apps(p)), { [A]: 12, [B]: null });
    clock += 1000; // within the interval a poll with nothing else changed is not written: a new depth is
    assert.equal(await poll(p, { ...identity(A), "x-svc-outbox-depth": "0" }), 200);
    assert.deepEqual(depths(await apps(p)), { [A]: 0, [B]: null });
  });

  test("stores nothing for a refused poll or one without a valid instance id", async () => {
    const p = await t.newProject("refused");
    assert.equal(await poll({ id: p.id, secret: "sdk_wrong" }, identity(A)), 401);
    assert.equal(await poll(p, { "x-svc-app-label": "no instance" }), 200);
    assert.equal(await poll(p, identity("not-a-ulid")), 200);
    assert.deepEqual(await apps(p), []);
    const rows = await t.client.execute({
      sql: "SELECT COUNT(*) AS n FROM cloud_apps WHERE project_id = ?",
      args: [p.id],
    });
    assert.equal(Number(rows.rows[0].n), 0);
  });

  test("records a cursor beyond the project's latest revocation as that latest seq", async () => {
    const p = await t.newProject("beyond");
    assert.equal(await poll(p, identity(A), 999_999), 200);
    assert.equal((await apps(p))[0].cursor, 0, "no revocation yet");
    await revocations(p, 3);
    clock += 5000;
    assert.equal(await poll(p, identity(A), 999_999), 200);
    assert.equal((await apps(p))[0].cursor, 3);
    clock += 1000;
    assert.equal(await poll(p, identity(A), 2), 200);
    assert.equal((await apps(p))[0].cursor, 2, "a cursor within the feed is kept as it is");
  });

  test("records no app for a feed poll refused with 429 past the project's cap", async () => {
    const capped = await startTestCloud({ now: () => clock, polls: { maxPollsPerProject: 1 } });
    const cappedServer = await listen(capped.cloud.handle);
    try {
      const p = capped.project;
      const held = new AbortController();
      const first = fetch(`${cappedServer.url}${FEED}?after=0&wait=20`, {
        headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id },
        signal: held.signal,
      }).catch(() => undefined);
      await waitFor("the first poll to be held", () => waitingPolls(capped.cloud) === 1);
      const refused = await fetch(`${cappedServer.url}${FEED}?after=999999&wait=1`, {
        headers: { authorization: `Bearer ${p.secret}`, "x-svc-project": p.id, ...identity(B) },
      });
      await refused.body?.cancel();
      held.abort();
      await first;
      assert.equal(refused.status, 429);
      const rows = await capped.client.execute({
        sql: "SELECT COUNT(*) AS n FROM cloud_apps WHERE project_id = ?",
        args: [p.id],
      });
      assert.equal(Number(rows.rows[0].n), 0, "no ghost app");
    } finally {
      await cappedServer.close();
      await capped.close();
    }
  });

  test("clamps the label, drops control characters and keeps an unknown mode or version as null", async () => {
    const p = await t.newProject("clamped");
    const label = `<b>\t${"x".repeat(300)}`;
    assert.equal(await poll(p, { ...identity(A.toLowerCase(), label, "local"), "x-svc-sdk-version": "1.0 <x>" }), 200);
    const [app] = await apps(p);
    assert.equal(app.instanceId, A);
    assert.equal(app.label, `<b>${"x".repeat(97)}`);
    assert.equal(app.mode, null);
    assert.equal(app.sdkVersion, null);
  });

  test("writes a long-polling instance at most once every 5 s unless its cursor or identity changed", async () => {
    const p = await t.newProject("throttled");
    await revocations(p, 2);
    const first = clock;
    await poll(p, identity(A));
    clock += 4000;
    await poll(p, identity(A));
    assert.equal((await apps(p))[0].lastSeenAt, new Date(first).toISOString(), "the second poll wrote nothing");
    clock += 500;
    await poll(p, identity(A), 2);
    assert.equal((await apps(p))[0].cursor, 2, "a new cursor is written at once");
    assert.equal((await apps(p))[0].lastSeenAt, new Date(clock).toISOString());
    clock += 5000;
    await poll(p, identity(A), 2);
    assert.equal((await apps(p))[0].lastSeenAt, new Date(clock).toISOString(), "written again after 5 s");
    assert.equal((await apps(p))[0].firstSeenAt, new Date(first).toISOString());
  });

  test("says stale after a minute without a poll, and following again on the next one", async () => {
    const p = await t.newProject("stale");
    await poll(p, identity(A));
    clock += 60_000;
    assert.equal((await apps(p))[0].state, "following");
    clock += 1;
    assert.equal((await apps(p))[0].state, "stale");
    await poll(p, identity(A));
    assert.equal((await apps(p))[0].state, "following");
  });

  test("says rotated_out for an app last seen before the secret's rotation, until it polls with the new one", async () => {
    const p = await t.newProject("rotated");
    clock = Date.now() - 10_000;
    await poll(p, identity(A));
    const secret = await rotateSdkSecret(t.storage, p.id);
    assert.ok(secret);
    const rotated = { id: p.id, secret };
    assert.equal((await apps(rotated))[0].state, "rotated_out");
    assert.equal(await poll(p, identity(A)), 401, "the old secret is refused");
    clock = Date.now() + 10_000;
    assert.equal(await poll(rotated, identity(A)), 200);
    assert.equal((await apps(rotated))[0].state, "following");
  });

  test("drops the apps not seen for 7 days with the purge", async () => {
    const p = await t.newProject("purged");
    const old = clock;
    await poll(p, identity(A));
    clock = old + APP_RETENTION_MS;
    await poll(p, identity(B));
    // Another cloud on the same database runs its first purge before it is ready.
    const second = createCloudWithSeams({ db: t.client, dashboard: false }, { now: () => old + APP_RETENTION_MS + 1 });
    await second.ready;
    await second.close();
    assert.deepEqual((await apps(p)).map((app: { instanceId: string }) => app.instanceId), [B]);
  });

  test("drops a deleted project's apps with it", async () => {
    const p = await t.newProject("deleted");
    await poll(p, identity(A));
    assert.ok(await deleteProject(t.storage, p.id));
    const rows = await t.client.execute({
      sql: "SELECT COUNT(*) AS n FROM cloud_apps WHERE project_id = ?",
      args: [p.id],
    });
    assert.equal(Number(rows.rows[0].n), 0);
  });
});
