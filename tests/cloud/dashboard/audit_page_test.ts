// The audit log and the violations list as an operator reads them, through handle() of a real cloud on libSQL:
// filtered by key and by an action chosen from a list, each key named (name and user) next to its id.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";
import { AUDIT_ACTIONS } from "../../../cloud/audit/mod.ts";

describe("the audit log and violations pages", () => {
  let t: TestCloud;
  let admin: FormClient;
  let base: string;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
    base = `/dashboard/projects/${t.project.id}`;
  });
  after(() => t.close());

  test("?key= shows only that key's entries, and the row names the key's name and user next to its id", async () => {
    const ann = await t.mintKey("ann", { name: "billing-agent" });
    const bob = await t.mintKey("bob", { name: "support-agent" });
    await admin.get(`${base}/keys`);
    await admin.post(`${base}/keys/${ann.id}/revoke`, {});
    await admin.post(`${base}/keys/${bob.id}/revoke`, {});
    const all = await admin.get(`${base}/audit?action=key.revoke`);
    assert.match(all.text, /<strong>2<\/strong> entries/);
    const only = await admin.get(`${base}/audit?key=${ann.id}`);
    assert.equal(only.status, 200);
    assert.match(
      only.text,
      new RegExp(`<strong>2</strong> entries\\s+about the key <code>${ann.id}</code>`),
      "its key.create and key.revoke",
    );
    assert.match(
      only.text,
      new RegExp(
        `<strong>billing-agent</strong> of <strong>ann</strong><br><a\\s+href="${base}/audit\\?key=${ann.id}"`,
      ),
    );
    assert.doesNotMatch(only.text, /support-agent/);
    assert.match(only.text, new RegExp(`id="key" name="key" value="${ann.id}"`), "the filter is kept in the form");
  });

  test("the cloud-wide log names keys of every project on the page in one read", async () => {
    const other = await t.newProject("other");
    const carl = await t.mintKey("carl", { name: "carl-agent" }, other);
    await t.sdk("DELETE", `/v1/sdk/keys/${carl.id}`, { as: other });
    const log = await admin.get(`/dashboard/audit?key=${carl.id}`);
    assert.match(log.text, /<strong>carl-agent<\/strong> of <strong>carl<\/strong>/);
    assert.match(log.text, /<strong>2<\/strong> entries/, "its key.create and key.revoke");
  });

  test("Action is a select of the known actions, the chosen one selected; an unknown one filters and is offered", async () => {
    const page = await admin.get(`${base}/audit?action=key.revoke`);
    const select = /<select id="action" name="action">([\s\S]*?)<\/select>/.exec(page.text)?.[1] ?? "";
    const values = [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);
    assert.deepEqual(values, ["", ...AUDIT_ACTIONS]);
    assert.match(select, /<option value="key.revoke" selected>/);
    const unknown = await admin.get(`${base}/audit?action=made.up`);
    assert.match(unknown.text, /<option value="made.up" selected>/);
    assert.match(unknown.text, /<strong>0<\/strong> entries/);
  });

  test("violations rows name the key (name and user) next to its id; an unknown key shows its id alone", async () => {
    const dana = await t.mintKey("dana", { name: "dana-agent" });
    const stranger = crypto.randomUUID();
    for (const apiKeyId of [dana.id, stranger]) {
      const res = await t.sdk("POST", "/v1/sdk/violations", { body: { violation: violation({ apiKeyId }) } });
      assert.equal(res.status, 200);
    }
    const list = await admin.get(`${base}/violations`);
    assert.match(
      list.text,
      new RegExp(
        `<strong>dana-agent</strong> of <strong>dana</strong><br><a\\s+href="${base}/violations\\?key=${dana.id}"`,
      ),
    );
    assert.match(list.text, new RegExp(`<td><a\\s+href="${base}/violations\\?key=${stranger}"`));
  });

  test("the secret-once page shows the environment lines to paste and says it will not be shown again", async () => {
    await admin.get("/dashboard/projects");
    const created = await admin.post("/dashboard/projects", { name: "Pasted" });
    const shown = await admin.get(created.location!);
    const projectId = /projects\/(prj_[0-9A-Z]+)\//.exec(created.location!)![1];
    const secret = /id="sdk-secret">(svcs_[A-Za-z0-9]+)</.exec(shown.text)![1];
    const lines = /<pre id="environment" tabindex="0">([^<]*)<\/pre>/.exec(shown.text)?.[1];
    assert.equal(
      lines,
      `SVC_CLOUD_ENDPOINT=http://cloud.test\nSVC_PROJECT_ID=${projectId}\nSVC_SDK_SECRET=${secret}\n`,
    );
    assert.match(shown.text, /will not be shown again/);
    assert.match(shown.text, /process\.env\.SVC_CLOUD_ENDPOINT/);
    assert.doesNotMatch((await admin.get(created.location!)).text, /SVC_SDK_SECRET=/);
  });
});
