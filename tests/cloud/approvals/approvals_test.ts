// Issue 39, item 7: hybrid and cloud-mode apps report each step of an approval (never its payload) to
// `POST /v1/sdk/approvals/batch`; the cloud stores each (approvalId, status) once with its `approval.*` audit entry,
// keeps the latest status (a late `pending` never undoes a decision), lists them per project for tooling, and shows
// an approval whose expiry passed while still pending as expired.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ulid } from "ulid";
import type { ApprovalStep } from "../../../core/contract/approval.ts";
import { deleteProject } from "../../../cloud/projects/projects.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

/** A step of a fresh (or the given) approval. */
function step(over: Partial<ApprovalStep> = {}): ApprovalStep {
  return {
    approvalId: `apr_${ulid(T0)}`,
    intent: "notes.delete_all",
    keyId: "key-1",
    userId: "alice",
    agentId: null,
    status: "pending",
    createdAt: iso(T0),
    expiresAt: iso(T0 + 60 * 60_000),
    decidedAt: null,
    ...over,
  };
}

describe("approvals reported by apps", () => {
  let t: TestCloud;
  let clock = T0 + 1000;
  before(async () => t = await startTestCloud({ now: () => clock }));
  after(() => t.close());

  const audit = async (target: string, as = t.project) =>
    (await t.sdk("GET", "/v1/sdk/audit?limit=200", { as })).body.entries.filter((e: { target: string }) =>
      e.target === target
    );

  test("a batch stores each (approvalId, status) once and audits each once; a repeat stores nothing", async () => {
    const asked = step({ userId: "bob" });
    const denied = { ...asked, status: "denied" as const, decidedAt: iso(T0 + 5000), reason: "not now" };
    const first = await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [asked, denied, asked] } });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(first.body, { ok: true, stored: 2 });
    const again = await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [asked, denied] } });
    assert.deepEqual(again.body, { ok: true, stored: 0 });
    const entries = await audit(asked.approvalId);
    assert.deepEqual(entries.map((e: { action: string }) => e.action).sort(), ["approval.deny", "approval.request"]);
    const deny = entries.find((e: { action: string }) => e.action === "approval.deny");
    assert.equal(deny.actor, "app");
    assert.deepEqual(deny.detail, { intent: "notes.delete_all", keyId: "key-1", userId: "bob", reason: "not now" });
    assert.equal(deny.createdAt, denied.decidedAt);
    const listed = await t.sdk("GET", "/v1/sdk/approvals?userId=bob");
    assert.deepEqual(listed.body.approvals, [{ ...denied, reason: "not now" }]);
  });

  test("a late pending after approved keeps approved, and a second final status never overwrites the first", async () => {
    const asked = step({ keyId: "key-late" });
    const approved = { ...asked, status: "approved" as const, decidedAt: iso(T0 + 2000) };
    const cancelled = { ...asked, status: "cancelled" as const, decidedAt: iso(T0 + 3000) };
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [approved] } });
    const late = await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [asked, cancelled] } });
    assert.deepEqual(late.body, { ok: true, stored: 2 }, "each step is still recorded (and audited) once");
    const listed = await t.sdk("GET", "/v1/sdk/approvals?keyId=key-late");
    assert.deepEqual(listed.body.approvals.map((a: ApprovalStep) => [a.status, a.decidedAt]), [
      ["approved", approved.decidedAt],
    ]);
  });

  test("another project sees nothing of them, and cannot touch them", async () => {
    const other = await t.newProject("Other approvals");
    const mine = step({ keyId: "key-mine" });
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [mine] } });
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/approvals", { as: other })).body.approvals, []);
    assert.deepEqual(await audit(mine.approvalId, other), []);
    const theirs = await t.sdk("POST", "/v1/sdk/approvals/batch", {
      body: { approvals: [{ ...mine, status: "approved", decidedAt: iso(T0 + 1) }] },
      as: other,
    });
    assert.equal(theirs.body.stored, 1);
    const listed = await t.sdk("GET", "/v1/sdk/approvals?keyId=key-mine");
    assert.deepEqual(listed.body.approvals.map((a: ApprovalStep) => a.status), ["pending"]);
  });

  test("a deleted project's approvals and steps go with it", async () => {
    const p = await t.newProject("deleted approvals");
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [step()] }, as: p });
    assert.ok(await deleteProject(t.storage, p.id));
    for (const table of ["cloud_approvals", "cloud_approval_steps"]) {
      const rows = await t.client.execute({
        sql: `SELECT COUNT(*) AS n FROM ${table} WHERE project_id = ?`,
        args: [p.id],
      });
      assert.equal(Number(rows.rows[0].n), 0, table);
    }
  });

  test("the purge deletes approvals (and their steps) expired before the cut-off, and keeps the others", async () => {
    const old = step({ keyId: "key-purge", expiresAt: iso(T0 - 1000) });
    const kept = step({ keyId: "key-purge" });
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [old, kept] } });
    assert.equal(await t.storage.approvals.purgeApprovals(iso(T0)), 1);
    const listed = await t.sdk("GET", "/v1/sdk/approvals?keyId=key-purge");
    assert.deepEqual(listed.body.approvals.map((a: ApprovalStep) => a.approvalId), [kept.approvalId]);
    const steps = await t.client.execute({
      sql: "SELECT COUNT(*) AS n FROM cloud_approval_steps WHERE approval_id = ?",
      args: [old.approvalId],
    });
    assert.equal(Number(steps.rows[0].n), 0);
  });

  test("a pending approval past its expiry is listed as expired; the status filters read the expiry", async () => {
    const soon = step({ keyId: "key-exp", expiresAt: iso(T0 + 10_000) });
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: [soon] } });
    const pending = async () => (await t.sdk("GET", "/v1/sdk/approvals?keyId=key-exp&status=pending")).body.approvals;
    const expired = async () => (await t.sdk("GET", "/v1/sdk/approvals?keyId=key-exp&status=expired")).body.approvals;
    assert.equal((await pending()).length, 1);
    clock = T0 + 10_000;
    assert.deepEqual(await pending(), []);
    assert.deepEqual((await expired()).map((a: ApprovalStep) => [a.approvalId, a.status]), [
      [soon.approvalId, "expired"],
    ]);
  });

  test("pages follow nextCursor, newest first", async () => {
    const ids = [1, 2, 3].map((i) => step({ approvalId: `apr_${ulid(T0 + i)}`, keyId: "key-page" }));
    await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals: ids } });
    const one = await t.sdk("GET", "/v1/sdk/approvals?keyId=key-page&limit=2");
    assert.equal(one.body.approvals.length, 2);
    const two = await t.sdk("GET", `/v1/sdk/approvals?keyId=key-page&limit=2&cursor=${one.body.nextCursor}`);
    assert.deepEqual(two.body.nextCursor, null);
    const seen = [...one.body.approvals, ...two.body.approvals].map((a: ApprovalStep) => a.approvalId);
    assert.deepEqual(seen, ids.map((s) => s.approvalId).reverse());
  });

  test("an empty batch, a bad approval id or a step missing its fields gets the error envelope", async () => {
    for (const body of [{ approvals: [] }, { approvals: [step({ approvalId: "apr_nope" })] }, { approvals: [{}] }]) {
      const answer = await t.sdk("POST", "/v1/sdk/approvals/batch", { body });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.ok, false);
      assert.equal(answer.body.error.code, "VALIDATION_ERROR");
    }
  });
});
