// @slow: a cloud and a host that never answers, on sockets
// Client ID Metadata Document fetches hang on a host that never answers while a hybrid app follows the cloud's
// revocations: the fetches an outsider triggers are capped, so they cannot hold the HTTP client the revocation
// feed travels on (before, on Bun, 1,000 of them filled the shared fetch pool and a revoke arrived 18.5 s late).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withClientAddress } from "../../../core/http/mod.ts";
import { asAgent, mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { startCloudServer } from "../../fixtures/servers.ts";
import { authorizeParams, ORIGIN, pkce } from "../../fixtures/oauth_app.ts";
import { startSilentServer } from "../../fixtures/silent_server.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

test("a cloud revoke reaches a hybrid app while 150 signed-out requests name documents on a host that never answers", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-cimd-hybrid-"));
  const cloud = await startCloudServer(`file:${join(dir, "cloud.db")}`);
  const silent = await startSilentServer();
  const svc = notesSvc(
    {
      mode: "hybrid",
      storage: `file:${join(dir, "app.db")}`,
      cloud: cloud.appConfig(),
      oauth: { allowLoopbackClientIds: true },
    },
    undefined,
    // The fetches that get through hang until the host closes, however long the revoke takes to arrive; one host
    // here, so its own cap (two) is lifted to the overall one.
    { clientDocuments: { limits: { timeoutMs: 600_000, perHost: 4 } } },
  );
  const answered: number[] = [];
  let pending: Promise<unknown>[] = [];
  try {
    await svc.ready;
    const key = await mint(svc, "alice", ["notes:read"]);
    assert.equal(await svc.sync(), 0, "the key reached the cloud");
    const run = async () => {
      const res = await asAgent(svc, key.key, "POST", "/svc/agent/run", { intent: "notes.list" });
      await res.body?.cancel();
      return res.status;
    };
    assert.equal(await run(), 200);

    const challenge = (await pkce()).challenge;
    pending = Array.from({ length: 150 }, (_, i) => {
      const query = new URLSearchParams(authorizeParams(`${silent.url}/client/${i}.json`, challenge));
      const req = withClientAddress(new Request(`${ORIGIN}/svc/oauth/authorize?${query}`), `198.51.100.${i + 1}`);
      return svc.handle(req).then(async (res) => {
        await res.body?.cancel();
        answered.push(res.status);
      });
    });
    await waitFor("the fetches let through to hang at the host", () => silent.held() === 4);
    await waitFor("the other requests to be refused at once", () => answered.length === 146);

    const revoked = await cloud.sdk("DELETE", `/v1/sdk/keys/${key.id}`);
    assert.equal(revoked.status, 200);
    await waitFor("the cloud's revoke to reach the app through the feed", async () => await run() === 401);
    assert.equal(silent.held(), 4, "the documents' fetches were still hanging when the revoke was applied");
    // Before: 150 connections held (and, on Bun, the revoke waited for them).
    assert.equal(silent.accepted(), 4);
    assert.ok(answered.every((status) => status === 400));
  } finally {
    await silent.close();
    await Promise.all(pending);
    await svc.close();
    await cloud.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
