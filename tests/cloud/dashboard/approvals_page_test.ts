// Issue 39, item 7: a project's Approvals page, read-only, through handle() of a real cloud on libSQL: pending
// approvals first (intent, key, user, requested and expiry times), then the recently decided with their outcome; an
// approval whose expiry passed is no longer pending; no button decides; another project's approvals never show.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { ulid } from "ulid";
import type { ApprovalStep } from "../../../core/contract/approval.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";

const T0 = Date.parse("2026-03-01T10:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

function step(keyId: string, over: Partial<ApprovalStep> = {}): ApprovalStep {
  return {
    approvalId: `apr_${ulid(T0)}`,
    intent: "notes.delete_all",
    keyId,
    userId: "ann",
    agentId: null,
    status: "pending",
    createdAt: iso(T0),
    expiresAt: iso(T0 + 3_600_000),
    decidedAt: null,
    ...over,
  };
}

describe("the approvals page", () => {
  let t: TestCloud;
  let admin: FormClient;
  let base: string;
  let clock = T0 + 60_000;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress, now: () => clock } });
    admin = await signedIn(t, "admin@example.com");
    base = `/dashboard/projects/${t.project.id}`;
  });
  after(() => t.close());

  test("lists pending approvals first, then decided ones with their outcome, and offers no decision", async () => {
    const ann = await t.mintKey("ann", { name: "cleanup-agent" });
    const waiting = step(ann.id, { intent: "notes.delete_all" });
    const soon = step(ann.id, { intent: "notes.export", expiresAt: iso(T0 + 120_000) });
    const denied = step(ann.id, { intent: "mail.send_all" });
    const approvals = [waiting, soon, denied, { ...denied, status: "denied", decidedAt: iso(T0 + 5000), reason: "no" }];
    assert.equal((await t.sdk("POST", "/v1/sdk/approvals/batch", { body: { approvals } })).body.stored, 4);
    const other = await t.newProject("Elsewhere");
    await t.sdk("POST", "/v1/sdk/approvals/batch", {
      body: { approvals: [step("their-key", { intent: "theirs.secret_intent" })] },
      as: other,
    });

    const page = await admin.get(`${base}/approvals`);
    assert.equal(page.status, 200);
    assert.match(
      page.text,
      new RegExp(
        `<a[^>]+href="${base}/approvals"[^>]*aria-current="page"|aria-current="page"[^>]+href="${base}/approvals"`,
      ),
    );
    assert.match(page.text, /The key's user decides, in the app/);
    assert.match(page.text, /Pending \(2\)/);
    const [pendingPart, decidedPart] = page.text.split("Recently decided");
    assert.match(pendingPart, /notes\.delete_all/);
    assert.match(pendingPart, /notes\.export/);
    assert.match(pendingPart, /<strong>cleanup-agent<\/strong>/);
    assert.match(pendingPart, new RegExp(`datetime="${waiting.expiresAt}"`));
    assert.doesNotMatch(pendingPart, /mail\.send_all/);
    assert.match(decidedPart, /Denied<\/td>\s*<td><code>mail\.send_all<\/code>/);
    assert.match(decidedPart, /<td>no<\/td>/);
    assert.doesNotMatch(page.text, /theirs\.secret_intent/, "another project's approvals never show");
    assert.doesNotMatch(page.text, /<button[^>]*>\s*(Approve|Deny)/, "nobody decides here");
    assert.doesNotMatch(page.text, new RegExp(`action="${base}/approvals`), "no form posts to approvals");

    clock = T0 + 120_000; // `soon` expired while the cloud still has it pending
    const later = await admin.get(`${base}/approvals`);
    assert.match(later.text, /Pending \(1\)/);
    assert.match(later.text.split("Recently decided")[1], /Expired<\/td>\s*<td><code>notes\.export<\/code>/);
  });
});
