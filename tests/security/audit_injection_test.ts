// Audit log injection: a sign-in email with a line break or terminal escape
// bytes is refused before it becomes an audit actor, and `audit list` prints
// control characters escaped, so one entry is always one line.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { formClient, testAddress } from "../cloud/dashboard/form_client.ts";
import { runAuditList } from "../../cloud/cli/policy_commands.ts";
import { parseCommandLine } from "../../cloud/cli/usage.ts";
import { openCloudStorage } from "../../cloud/open_cloud_storage.ts";
import { recordAudit } from "../../cloud/audit/mod.ts";

const FORGED = "a@example.com\n2025-06-01T12:00:00.000Z  cli  operator.create  evil@example.com  {}\u001b[2J";

describe("audit log injection", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
  });
  after(() => t.close());

  test("a sign-in email with control characters, or too long, is refused and never audited", async () => {
    for (
      const email of [
        FORGED,
        "ops@exa\rmple.com",
        "ops@example.com\u001b[31m",
        `${"a".repeat(250)}@example.com`,
        "not an email",
      ]
    ) {
      const client = formClient(t.cloud.handle);
      await client.get("/dashboard/sign-in");
      const res = await client.post("/dashboard/sign-in", { email, password: "whatever it is here" });
      assert.equal(res.status, 400, JSON.stringify(email));
    }
    const failed = await t.storage.audit.listAudit({ action: "operator.sign_in_failed", limit: 100, offset: 0 });
    assert.equal(failed.entries.filter((e) => /\p{Cc}/u.test(e.actor)).length, 0);
    assert.equal(failed.total, 0);
    // A plausible email that is no operator's is still audited, as before.
    const client = formClient(t.cloud.handle);
    await client.get("/dashboard/sign-in");
    const res = await client.post("/dashboard/sign-in", { email: "nobody@example.com", password: "whatever it is" });
    assert.equal(res.status, 401);
    assert.equal(
      (await t.storage.audit.listAudit({ action: "operator.sign_in_failed", limit: 5, offset: 0 })).total,
      1,
    );
  });
});

test("audit list prints an entry with a line break and escape bytes as one line, escaped", async () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-audit-print-"));
  const url = `file:${join(dir, "svc.db")}`;
  try {
    const storage = await openCloudStorage(url);
    await recordAudit(storage, { actor: FORGED, sourceAddress: null }, {
      action: "operator.sign_in_failed",
      target: "t\u009bx",
      at: Date.parse("2025-06-01T12:00:00.000Z"),
    });
    await storage.close();
    const output = await runAuditList({ url }, parseCommandLine(["audit", "list", "--db", url]));
    assert.equal(output.text.split("\n").length, 1, output.text);
    assert.doesNotMatch(output.text, /\p{Cc}/u);
    assert.match(output.text, /a@example\.com\\n2025/);
    assert.match(output.text, /\\x1b\[2J/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
