// @slow: a cloud on a real socket behind a TCP proxy that loses its answers.
// Issue 39, item 7: the `/svc` routes' `deps.approvalStep` of each mode. Hybrid and cloud modes queue the step in
// the app's outbox and it reaches the cloud through lost answers exactly once (one approval, one audit entry per
// step); local mode tells nobody and queues nothing.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ulid } from "ulid";
import type { ApprovalStep } from "../../../core/contract/approval.ts";
import { closeSvc, openSvc } from "../../../core/app/open_svc.ts";
import type { SvcBuilt } from "../../../core/app/svc_parts.ts";
import type { SvcConfig } from "../../../core/app/svc_config.ts";
import { createCloudClient, followCloudPolicy } from "../../../core/cloud_link/mod.ts";
import { sleep } from "../../../core/retry/mod.ts";
import { PLATFORM } from "../../../core/platform/mod.ts";
import { type FaultProxy, startFaultProxy } from "../../fixtures/fault_proxy.ts";
import { type CloudServer, startCloudServer } from "../../fixtures/servers.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

/** What `createSvc` builds before storage opens, for a config. */
function builtFor(config: Record<string, unknown>, closing: AbortController): SvcBuilt {
  return {
    config: { userResolver: () => null, scopes: [], intents: [], storage: ":memory:", ...config } as SvcConfig,
    intents: new Map(),
    log: () => {},
    bodyLimit: 1_000_000,
    now: Date.now,
    sleep,
    closing: closing.signal,
    refusalsPerAddress: undefined,
    repeatsStoredWithinMs: undefined,
    runtime: PLATFORM,
  };
}

function step(keyId: string, over: Partial<ApprovalStep> = {}): ApprovalStep {
  const at = Date.now();
  return {
    approvalId: `apr_${ulid()}`,
    intent: "notes.delete_all",
    keyId,
    userId: "ann",
    agentId: null,
    status: "pending",
    createdAt: new Date(at).toISOString(),
    expiresAt: new Date(at + 24 * 60 * 60_000).toISOString(),
    decidedAt: null,
    ...over,
  };
}

describe("deps.approvalStep in each mode", () => {
  const dir = tempDir("svc-approval-modes-");
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

  for (const mode of ["hybrid", "cloud"] as const) {
    test(`${mode} mode: a step reaches the cloud through lost answers exactly once`, async () => {
      const cloudConfig = { ...cloud.appConfig({ endpoint: proxy.url }), timeoutMs: 300 };
      const closing = new AbortController();
      const client = createCloudClient(cloudConfig);
      const policy = followCloudPolicy({ cloud: client, log: () => {} });
      const storage = `file:${dir.file(`${mode}.db`)}`;
      const opened = await openSvc(builtFor({ mode, cloud: cloudConfig, storage }, closing), {
        config: cloudConfig,
        client,
        policy,
      });
      const keyId = `key-${mode}`;
      const asked = step(keyId);
      try {
        proxy.setMode("drop-replies");
        const before = cloud.requests;
        await opened.deps.approvalStep(asked);
        await opened.deps.approvalStep({ ...asked, status: "cancelled", decidedAt: new Date().toISOString() });
        await waitFor("several tries to reach the cloud", () => cloud.requests - before >= 3);
        proxy.setMode("pass");
        await waitFor("the outbox to empty", async () => await opened.cloudLink!.outbox.sync() === 0);
        const listed = await (await cloud.sdk("GET", `/v1/sdk/approvals?keyId=${keyId}`)).json();
        assert.deepEqual(listed.approvals.map((a: ApprovalStep) => [a.approvalId, a.status]), [
          [asked.approvalId, "cancelled"],
        ]);
        const audit = await (await cloud.sdk("GET", "/v1/sdk/audit?limit=200")).json();
        const actions = audit.entries.filter((e: { target: string }) => e.target === asked.approvalId)
          .map((e: { action: string }) => e.action).sort();
        assert.deepEqual(actions, ["approval.cancel", "approval.request"]);
      } finally {
        proxy.setMode("pass");
        closing.abort();
        policy.close();
        await closeSvc(opened);
      }
    });
  }

  test("local mode: approvalStep resolves and queues nothing", async () => {
    const closing = new AbortController();
    const opened = await openSvc(builtFor({ mode: "local" }, closing), null);
    try {
      await opened.deps.approvalStep(step("key-local"));
      assert.equal(await opened.storage.outboxSize(), 0);
      assert.equal(opened.cloudLink, null);
    } finally {
      closing.abort();
      await closeSvc(opened);
    }
  });
});
