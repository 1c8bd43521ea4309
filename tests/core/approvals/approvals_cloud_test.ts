// @slow: a cloud on a socket
// Approvals at a cloud-mode app, whose keys the cloud keeps: the app keeps the approval and its payload, the handler
// runs on approval, and a key revoked by its user (at the cloud) cancels its pending approvals through the feed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asAgent, asUser, intents, mint, notesSvc, run, wipeIntent } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

describe("approvals at a cloud-mode app", () => {
  const dir = tempDir("svc-approvals-cloud-");
  let cloud: CloudServer;
  let svc: Svc;
  const ran: unknown[] = [];

  before(async () => {
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    svc = notesSvc({
      mode: "cloud",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig(),
      intents: [...intents, wipeIntent(ran)],
    });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    dir.remove();
  });

  test("approve runs the handler once with the stored payload; the agent reads the result", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const asked = await run(svc, key, "notes.delete_all", { folder: "work" });
    assert.equal(asked.status, 202);
    const { approvalId } = await asked.json();
    assert.equal((await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/approve`)).status, 200);
    assert.deepEqual(ran, [{ folder: "work" }]);
    const outcome = await (await asAgent(svc, key, "GET", `/svc/agent/approvals/${approvalId}`)).json();
    assert.equal(outcome.status, "approved");
    assert.deepEqual(outcome.result, { deleted: 3 });
  });

  test("a key its user revokes (at the cloud) cancels its pending approvals, heard through the feed", async () => {
    const { key, id } = await mint(svc, "bob", ["notes:write"]);
    const { approvalId } = await (await run(svc, key, "notes.delete_all", { folder: "home" })).json();
    assert.equal((await asUser(svc, "bob", "DELETE", `/svc/keys/${id}`)).status, 200);
    const cancelled = await waitFor("the feed's revocation to cancel the approval", async () => {
      const listed = await (await asUser(svc, "bob", "GET", "/svc/approvals")).json();
      return listed.approvals[0]?.status === "cancelled" ? listed.approvals[0] : null;
    });
    assert.equal(cancelled.approvalId, approvalId);
    assert.equal((await asUser(svc, "bob", "POST", `/svc/approvals/${approvalId}/approve`)).status, 409);
  });
});
