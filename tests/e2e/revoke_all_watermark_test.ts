// @slow: a hybrid app and a cloud on sockets, the link between them cut by a fault proxy
// A user's revoke-all at the cloud reaches the keys the cloud has not heard of yet: a key a hybrid app minted while
// its outbox could not reach the cloud, mirrored after the revoke-all, is stored revoked at the cloud (reason as the
// revoke-all's) and refused at the app once the revocation feed brings it.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { withSvc } from "../../mod.ts";
import { notesSvc } from "../fixtures/notes_svc.ts";
import { listen, mintOverHttp, startCloudServer } from "../fixtures/servers.ts";
import { startFaultProxy } from "../fixtures/fault_proxy.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { waitFor } from "../fixtures/wait_for.ts";

/** Runs `notes.list` at the app over HTTP with `key`; its status. */
async function runAt(appUrl: string, key: string): Promise<number> {
  const res = await fetch(`${appUrl}/svc/agent/run`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ intent: "notes.list" }),
  });
  await res.body?.cancel();
  return res.status;
}

describe("a revoke-all of a user and a key mirrored after it", () => {
  test("a key minted during an outbox outage, mirrored after its user's revoke-all: revoked at the cloud and the app", async () => {
    const dir = tempDir("svc-watermark-");
    const cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    const proxy = await startFaultProxy(cloud.url);
    const svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig({ endpoint: proxy.url }),
    });
    const app = await listen(withSvc(svc));
    try {
      const before = await mintOverHttp(app.url, "alice", ["notes:read"]);
      assert.equal(await svc.sync(), 0, "the first key reached the cloud");

      proxy.setMode("reset");
      const during = await mintOverHttp(app.url, "alice", ["notes:read"]);
      assert.ok(await svc.sync() > 0, "the second key's mirror waits in the outbox");
      const revokeAll = await (await cloud.sdk("DELETE", "/v1/sdk/keys?userId=alice")).json();
      assert.deepEqual(revokeAll, { ok: true, revoked: 1 }, "the cloud knew only the first key");

      proxy.setMode("pass");
      await waitFor("the outbox to deliver the late mirror", async () => await svc.sync() === 0);
      const verified = await (await cloud.sdk("POST", "/v1/sdk/keys/verify", { key: during.key })).json();
      assert.deepEqual(verified, { valid: false }, "the cloud refuses the late key");
      const feed = await (await cloud.sdk("GET", "/v1/sdk/keys/revocations")).json();
      assert.deepEqual(
        feed.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]),
        [[before.id, "tooling"], [during.id, "tooling"]],
      );
      await waitFor(
        "the app to apply the feed",
        async () => (await svc.health()).revocationFeed!.cursor >= feed.nextSeq,
      );
      assert.deepEqual([await runAt(app.url, before.key), await runAt(app.url, during.key)], [401, 401]);
    } finally {
      await svc.close();
      await app.close();
      await proxy.close();
      await cloud.stop();
      dir.remove();
    }
  });
});
