// The approvals' service: every step is told once (what the cloud audits, never the payload); the retention's purge
// expires what nobody decided in time and deletes an approval that ended once it expired longer ago than the retention.
import { test } from "node:test";
import assert from "node:assert/strict";
import { z } from "zod";
import { createApprovals } from "../../../core/approvals/mod.ts";
import { openAppStorage } from "../../../core/app/storage/mod.ts";
import { compileIntents, defineIntent } from "../../../core/intents/mod.ts";
import type { ApprovalStep } from "../../../core/contract/mod.ts";

test("purge expires what nobody decided (one expired step) and deletes ended approvals after the retention", async () => {
  let clock = Date.parse("2026-11-27T12:00:00Z");
  const storage = await openAppStorage(":memory:", { now: () => clock });
  const steps: ApprovalStep[] = [];
  const intents = compileIntents([
    defineIntent({
      name: "notes.delete_all",
      title: "Delete all notes",
      requiredScopes: [],
      input: z.object({}),
      approval: "always",
      approvalTtlMinutes: 1,
      handler: () => null,
    }),
  ], []);
  const approvals = createApprovals({
    db: storage.db,
    now: () => clock,
    run: () => Promise.resolve(null),
    step: (step) => void steps.push(step),
    log: () => {},
  });
  try {
    const key = {
      id: "k1",
      userId: "alice",
      name: "key",
      scopes: [],
      agentId: "alice",
      revokedAt: null,
      expiresAt: null,
      revokesAt: null,
      grantId: null,
    };
    const { approvalId } = await approvals.request(key, intents.get("notes.delete_all")!, {});
    await approvals.purge(60_000);
    assert.deepEqual(steps.map((s) => s.status), ["pending"], "not due yet");
    clock += 60_000;
    await approvals.purge(60_000);
    assert.deepEqual(steps.map((s) => s.status), ["pending", "expired"]);
    assert.equal(steps[1].decidedAt, "2026-11-27T12:01:00.000Z");
    assert.equal((await approvals.get("alice", approvalId)).status, "expired");
    clock += 60_001;
    await approvals.purge(60_000);
    await assert.rejects(approvals.get("alice", approvalId), { code: "NOT_FOUND" });
    assert.equal(steps.length, 2, "nothing more to tell");
  } finally {
    await storage.close();
  }
});

test("each step is told once, without the payload: requested, approved, denied, cancelled", async () => {
  const clock = Date.parse("2026-11-27T12:00:00Z");
  const storage = await openAppStorage(":memory:", { now: () => clock });
  const steps: ApprovalStep[] = [];
  const intents = compileIntents([
    defineIntent({
      name: "notes.delete_all",
      title: "Delete all notes",
      requiredScopes: [],
      input: z.object({ folder: z.string() }),
      approval: "always",
      handler: () => null,
    }),
  ], []);
  const approvals = createApprovals({
    db: storage.db,
    now: () => clock,
    run: () => Promise.resolve({ deleted: 1 }),
    step: (step) => void steps.push(step),
    log: () => {},
  });
  const key = (id: string) => ({
    id,
    userId: "alice",
    name: "key",
    scopes: [],
    agentId: "alice",
    revokedAt: null,
    expiresAt: null,
    revokesAt: null,
    grantId: null,
  });
  const intent = intents.get("notes.delete_all")!;
  try {
    const a = await approvals.request(key("k1"), intent, { folder: "secret" });
    const b = await approvals.request(key("k1"), intent, { folder: "secret" });
    const c = await approvals.request(key("k2"), intent, { folder: "secret" });
    assert.deepEqual(await approvals.approve("alice", a.approvalId), { deleted: 1 });
    await approvals.deny("alice", b.approvalId, "no");
    await approvals.cancelForKeys(["k2"]);
    assert.deepEqual(steps.map((s) => [s.approvalId, s.status]), [
      [a.approvalId, "pending"],
      [b.approvalId, "pending"],
      [c.approvalId, "pending"],
      [a.approvalId, "approved"],
      [b.approvalId, "denied"],
      [c.approvalId, "cancelled"],
    ]);
    assert.equal(steps[4].reason, "no");
    assert.ok(!JSON.stringify(steps).includes("secret"), "no payload in a step");
  } finally {
    await storage.close();
  }
});
