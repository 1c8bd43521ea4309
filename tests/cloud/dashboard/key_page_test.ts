// A key's page, through handle() of a real cloud on libSQL: its details, recent violations and audit entries,
// Revoke and "Revoke all keys of USER"; an unknown key or another project's is a 404 page.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";

describe("a key's page", () => {
  let t: TestCloud;
  let admin: FormClient;
  let base: string;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
    base = `/dashboard/projects/${t.project.id}`;
  });
  after(() => t.close());

  test("shows the key, its violations and audit entries, Revoke and Revoke all keys of USER", async () => {
    const { id, agentId } = await t.mintKey("alice", { name: "billing-agent", scopes: [] });
    const record = (await t.storage.keys.findProjectKey(t.project.id, id))!;
    await t.sdk("POST", "/v1/sdk/violations", {
      body: { violation: violation({ apiKeyId: id, userId: "alice", message: "tried <refund>" }) },
    });
    const page = await admin.get(`${base}/keys/${id}`);
    assert.equal(page.status, 200);
    for (const text of ["billing-agent", agentId, record.start, "active", "Expires", "Recent violations"]) {
      assert.ok(page.text.includes(text), text);
    }
    assert.match(page.text, /tried &lt;refund&gt;/);
    assert.match(page.text, /aria-label="Revoke billing-agent \(svc_live_/);
    assert.match(page.text, />Revoke all keys of alice</);
    assert.match(page.text, /<th scope="row">Last used<\/th>\s*<td><span class="muted">never<\/span>/);

    await admin.get(`${base}/keys/${id}/revoke`);
    await admin.post(`${base}/keys/${id}/revoke`, {});
    const revoked = await admin.get(`${base}/keys/${id}`);
    assert.match(revoked.text, /revoked <time/);
    assert.match(revoked.text, /<code>key.revoke<\/code>/);
    assert.match(revoked.text, /admin@example.com/);
    assert.doesNotMatch(revoked.text, /aria-label="Revoke billing-agent/, "no Revoke on a revoked key");
  });

  test("the keys list links each name to the key's page", async () => {
    const { id } = await t.mintKey("bob", { name: "bob-bot" });
    assert.match(
      (await admin.get(`${base}/keys?user=bob`)).text,
      new RegExp(`<a href="${base}/keys/${id}">bob-bot</a>`),
    );
  });

  test("an unknown key and another project's key are 404 pages", async () => {
    const other = await t.newProject("Other");
    const foreign = await t.mintKey("carol", {}, other);
    assert.equal((await admin.get(`${base}/keys/no-such-key`)).status, 404);
    const page = await admin.get(`${base}/keys/${foreign.id}`);
    assert.equal(page.status, 404);
    assert.match(page.text, /no such key in this project/);
  });
});
