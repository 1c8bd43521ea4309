// @slow: a cloud on a real socket behind a TCP proxy that loses its answers.
// Issue 39, item 7: the `approvalStep` hybrid and cloud modes give the `/svc` routes queues each step of an approval
// in the app's outbox and sends it to `POST /v1/sdk/approvals/batch`; an answer lost on the way is retried (never set
// aside) and the cloud stores and audits each (approvalId, status) exactly once.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ulid } from "ulid";
import type { ApprovalStep } from "../../../core/contract/approval.ts";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { createCloudClient, createOutbox, shipApprovalSteps } from "../../../core/cloud_link/mod.ts";
import { type FaultProxy, startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

describe("approval steps through the outbox", () => {
  const dir = tempDir("svc-approval-steps-");
  let cloud: CloudServer;
  let proxy: FaultProxy;

  before(async () => {
    cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
    proxy = await startFaultProxy(cloud.url);
  });
  after(async () => {
    await proxy.close();
    await cloud.stop();
    dir.remove();
  });

  test("answers lost for a while: each step reaches the cloud exactly once, with one audit entry each", async () => {
    const storage = await openAppStorage(`file:${dir.file("app.db")}`);
    const client = createCloudClient({ ...cloud.appConfig({ endpoint: proxy.url }), timeoutMs: 300 });
    const outbox = createOutbox({ storage, cloud: client, log: () => {}, retryMinMs: 5, retryMaxMs: 20 });
    const approvalStep = shipApprovalSteps(storage, outbox);
    const at = Date.now();
    const asked: ApprovalStep = {
      approvalId: `apr_${ulid()}`,
      intent: "notes.delete_all",
      keyId: "key-lost",
      userId: "ann",
      agentId: "ann-agent",
      status: "pending",
      createdAt: new Date(at).toISOString(),
      expiresAt: new Date(at + 24 * 60 * 60_000).toISOString(),
      decidedAt: null,
    };
    try {
      proxy.setMode("drop-replies");
      const before = cloud.requests;
      await approvalStep(asked);
      await approvalStep({ ...asked, status: "approved", decidedAt: new Date(at + 1000).toISOString() });
      await waitFor("several tries to reach the cloud", () => cloud.requests - before >= 3);
      proxy.setMode("pass");
      // A try through the healed link can still outlast its 300 ms on a loaded machine (stored, its answer late):
      // synced until nothing waits, each retry one more chance for a step to be stored twice.
      await waitFor("the outbox to empty", async () => await outbox.sync() === 0);
      assert.deepEqual(await outbox.setAside(), { count: 0, reasons: [] }, "a lost answer sets nothing aside");
      const listed = await (await cloud.sdk("GET", "/v1/sdk/approvals?keyId=key-lost")).json();
      assert.deepEqual(listed.approvals.map((a: ApprovalStep) => [a.approvalId, a.status]), [
        [asked.approvalId, "approved"],
      ]);
      const audit = await (await cloud.sdk("GET", "/v1/sdk/audit?limit=200")).json();
      const actions = audit.entries.filter((e: { target: string }) => e.target === asked.approvalId)
        .map((e: { action: string }) => e.action).sort();
      assert.deepEqual(actions, ["approval.approve", "approval.request"], "each step audited once");
    } finally {
      proxy.setMode("pass");
      await outbox.close();
      await storage.close();
    }
  });

  test("the outbox's purge never drops a waiting approval step, even over its limit", async () => {
    const storage = await openAppStorage(":memory:");
    const unreachable = createCloudClient({ endpoint: "http://127.0.0.1:1", projectId: "prj_x", sdkSecret: "svcs_x" });
    const outbox = createOutbox({ storage, cloud: unreachable, log: () => {}, retryMinMs: 60_000, limit: 0 });
    try {
      const at = new Date().toISOString();
      await shipApprovalSteps(storage, outbox)({
        approvalId: `apr_${ulid()}`,
        intent: "notes.delete_all",
        keyId: "k",
        userId: "u",
        agentId: null,
        status: "pending",
        createdAt: at,
        expiresAt: at,
        decidedAt: null,
      });
      await outbox.purge();
      assert.deepEqual((await storage.outboxHead(10)).map((i) => i.kind), ["approval"]);
    } finally {
      await outbox.close();
      await storage.close();
    }
  });
});
