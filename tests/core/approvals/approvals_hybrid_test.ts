// @slow: a cloud on a socket
// Approvals at a hybrid app, against a real cloud: a decision puts `approval.decided` in the agent's inbox (without
// the payload), once per approval and status.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Svc } from "../../../mod.ts";
import { asUser, intents, mint, notesSvc, run, wipeIntent } from "../../fixtures/notes_svc.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

describe("approvals at a hybrid app", () => {
  const dir = tempDir("svc-approvals-hybrid-");
  let cloud: CloudServer;
  let svc: Svc;

  before(async () => {
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    svc = notesSvc({
      mode: "hybrid",
      storage: `file:${dir.file("app.db")}`,
      cloud: cloud.appConfig(),
      intents: [...intents, wipeIntent()],
    });
    await svc.ready;
  });
  after(async () => {
    await svc.close();
    await cloud.stop();
    dir.remove();
  });

  test("a decision puts approval.decided in the agent's inbox, without the payload", async () => {
    const { key } = await mint(svc, "alice", ["notes:write"]);
    const asked = await run(svc, key, "notes.delete_all", { folder: "secret-folder" });
    assert.equal(asked.status, 202);
    const { approvalId } = await asked.json();
    const denied = await asUser(svc, "alice", "POST", `/svc/approvals/${approvalId}/deny`, { reason: "no" });
    assert.equal(denied.status, 200);
    const items = await waitFor("approval.decided in the inbox", async () => {
      const res = await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });
      const page = await res.json();
      return page.items?.length ? page.items : null;
    });
    assert.equal(items.length, 1);
    assert.equal(items[0].type, "approval.decided");
    assert.deepEqual(
      { ...items[0].payload, decidedAt: undefined },
      { approvalId, intent: "notes.delete_all", status: "denied", reason: "no", decidedAt: undefined },
    );
    assert.ok(!JSON.stringify(items[0]).includes("secret-folder"), "the payload stays at the app");
  });

  test("a key revoked at the cloud, heard through the feed, cancels its pending approvals", async () => {
    const { key, id } = await mint(svc, "bob", ["notes:write"]);
    assert.equal(await svc.sync(), 0, "the key reached the cloud");
    const asked = await run(svc, key, "notes.delete_all", { folder: "work" });
    const { approvalId } = await asked.json();
    const revoked = await cloud.sdk("DELETE", `/v1/sdk/keys/${id}?userId=bob`);
    assert.equal(revoked.status, 200);
    const cancelled = await waitFor("the feed's revocation to cancel the approval", async () => {
      const listed = await (await asUser(svc, "bob", "GET", "/svc/approvals")).json();
      return listed.approvals[0]?.status === "cancelled" ? listed.approvals[0] : null;
    });
    assert.equal(cancelled.approvalId, approvalId);
  });
});
