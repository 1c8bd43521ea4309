// @slow: a hybrid app and a cloud on sockets, the link cut by a fault proxy for one test
// OAuth grants in hybrid mode seen from the cloud: the app mirrors each key with its grant, so an operator's revoke at
// the cloud of a key the grant already replaced ends the grant (the feed carries it, the app ends it), the cloud lists
// a grant once, and a grant alive at its user's revoke-all ends even when the key it had then reaches the cloud
// already replaced (minted during an outage and refreshed before the link came back).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asAgent, asUser, notesSvc } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { type FaultProxy, startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { grantOf, refreshOnce } from "../../fixtures/oauth_app.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";
import { openDatabase } from "../../../core/db/mod.ts";

/** Looks for at most about a second (the contract's bound for a revoke reaching another process). */
const WITHIN_A_SECOND = 100;

interface Listed {
  id: string;
  revokedAt: string | null;
}

describe("OAuth grants of a hybrid app at the cloud", () => {
  let dir: ReturnType<typeof tempDir>;
  let cloud: CloudServer;
  let proxy: FaultProxy;
  let svc: Svc;
  let at = Date.now();
  const now = () => at;

  before(async () => {
    dir = tempDir("svc-grants-hybrid-cloud-");
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`, { now });
    proxy = await startFaultProxy(cloud.url);
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ endpoint: proxy.url }),
      oauth: { tokenRequestsPerGrant: false },
    }, now);
    await svc.ready;
    assert.equal(await svc.sync(), 0, "the app has read the project's policy");
  });
  after(async () => {
    await svc.close();
    await proxy.close();
    await cloud.stop();
    dir.remove();
  });

  const handle = (req: Request) => svc.handle(req);
  const atApp = async (key: string) => (await asAgent(svc, key, "GET", "/svc/agent/intents")).status;
  const atCloud = async (key: string) => {
    const res = await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });
    await res.body?.cancel();
    return res.status;
  };
  const cloudKeys = async (user: string): Promise<Listed[]> =>
    (await (await cloud.sdk("GET", `/v1/sdk/keys?userId=${user}`)).json()).keys;
  const refusedEverywhere = (key: string) =>
    waitFor("the key to be refused at the app and the cloud", async () => {
      return await atApp(key) === 401 && await atCloud(key) === 401;
    }, WITHIN_A_SECOND);

  test("an operator's revoke of the key the cloud listed, which the grant has replaced since, ends the grant", async () => {
    const first = await grantOf(handle, "dave");
    assert.equal(await svc.sync(), 0);
    const listed = (await cloudKeys("dave")).filter((k) => k.revokedAt === null);
    assert.equal(listed.length, 1, "the operator sees the grant's key");
    const second = await refreshOnce(handle, first.clientId, first.refresh);
    assert.equal(second.status, 200, "the client refreshes meanwhile");
    assert.equal(await svc.sync(), 0);
    const revoke = await cloud.sdk("DELETE", `/v1/sdk/keys/${listed[0].id}`);
    assert.equal(revoke.status, 200);
    await refusedEverywhere(second.access!);
    assert.equal((await refreshOnce(handle, first.clientId, second.refresh!)).error, "invalid_grant");
  });

  test("the cloud lists a grant once, as the app does, and deletes the keys it replaced an hour after", async () => {
    const first = await grantOf(handle, "erin");
    let refresh = first.refresh;
    for (let i = 0; i < 9; i++) {
      const next = await refreshOnce(handle, first.clientId, refresh);
      assert.equal(next.status, 200);
      refresh = next.refresh!;
    }
    assert.equal(await svc.sync(), 0);
    const atTheApp = (await (await asUser(svc, "erin", "GET", "/svc/keys")).json()).keys;
    const atTheCloud = await cloudKeys("erin");
    assert.deepEqual([atTheApp.length, atTheCloud.length], [1, 1]);
    assert.equal(atTheCloud[0].id, atTheApp[0].id);
    assert.equal(atTheCloud[0].revokedAt, null);
    at += 3_600_001;
    assert.equal((await refreshOnce(handle, first.clientId, refresh)).status, 200);
    assert.equal(await svc.sync(), 0);
    const db = await openDatabase(`file:${dir.file("cloud.db")}`);
    try {
      const rows = await db.execute("SELECT COUNT(*) AS n FROM cloud_keys WHERE user_id = 'erin'");
      assert.equal(Number(rows.rows[0].n), 2, "the new key and the one it replaced; the nine before are deleted");
    } finally {
      db.close();
    }
  });

  test("a grant alive at its user's revoke-all ends, though its key then reaches the cloud replaced", async () => {
    proxy.setMode("reset");
    try {
      const first = await grantOf(handle, "carol");
      const revokeAll = await (await cloud.sdk("DELETE", "/v1/sdk/keys?userId=carol")).json();
      assert.deepEqual(revokeAll, { ok: true, revoked: 0 }, "the cloud has not heard of the grant's key");
      at += 1_000; // the next key is minted after the watermark
      const second = await refreshOnce(handle, first.clientId, first.refresh);
      assert.equal(second.status, 200, "the client refreshes before the link is back");
      proxy.setMode("pass");
      await waitFor("the outbox to deliver", async () => await svc.sync() === 0);
      await refusedEverywhere(second.access!);
      assert.equal((await refreshOnce(handle, first.clientId, second.refresh!)).error, "invalid_grant");
    } finally {
      proxy.setMode("pass");
    }
  });
});
