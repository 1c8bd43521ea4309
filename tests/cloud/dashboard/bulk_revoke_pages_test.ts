// The keys list's search, selection and bulk revokes, through handle() of a real cloud on libSQL: "Search keys",
// "Select NAME" and "Revoke selected" (one confirmation listing the keys), "Revoke all keys of USER" (a
// confirmation stating the count), each revoke in one transaction and the list's filters kept.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";

describe("the keys list's search and bulk revokes", () => {
  let t: TestCloud;
  let admin: FormClient;
  let viewer: FormClient;
  let base: string;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
    viewer = await signedIn(t, "viewer@example.com", "viewer");
    base = `/dashboard/projects/${t.project.id}`;
  });
  after(() => t.close());

  const inbox = async (key: string) => (await t.agent(key, "GET", "/v1/agent/inbox")).status;
  const audit = async (action: string, target: string) =>
    (await t.storage.audit.listAudit({ projectId: t.project.id, action, keyId: target, limit: 100, offset: 0 }))
      .entries;

  test("Search keys matches a prefix of the name, start or user, with counts and paging", async () => {
    for (let i = 0; i < 52; i++) await t.mintKey("searcher", { name: `batch-${String(i).padStart(2, "0")}` });
    const other = await t.mintKey("zed", { name: "<b>zed's</b>" });
    const found = await admin.get(`${base}/keys?q=batch-`);
    assert.match(found.text, /<label for="q">Search keys<\/label>/);
    assert.match(found.text, /52 keys\s+\(showing 1 to 50\)/);
    assert.match(found.text, /Page 1 of 2/);
    const second = await admin.get(`${base}/keys?q=batch-&page=2`);
    assert.match(second.text, /52 keys\s+\(showing 51 to 52\)/);
    assert.match((await admin.get(`${base}/keys?q=sea`)).text, /52 keys/, "a user prefix");
    const start = (await t.storage.keys.findProjectKey(t.project.id, other.id))!.start;
    const byStart = await admin.get(`${base}/keys?q=${encodeURIComponent(start)}`);
    assert.match(byStart.text, /id="key-count">1 key\s/, "one key, in the singular");
    assert.match(byStart.text, /&lt;b&gt;zed&#39;s&lt;\/b&gt;/, "names are escaped");
    assert.match(byStart.text, new RegExp(`<a href="${base}/keys/${other.id}">`), "each name links to its page");
    assert.match(byStart.text, /aria-label="Select &lt;b&gt;zed&#39;s&lt;\/b&gt;"/);
  });

  test("Revoke selected: one confirmation lists the keys, the post revokes them and keeps the filters", async () => {
    const [a, b, c] = [
      await t.mintKey("sel", { name: "sel-a" }),
      await t.mintKey("sel", { name: "sel-b" }),
      await t
        .mintKey("sel", { name: "sel-c" }),
    ];
    const list = await admin.get(`${base}/keys?q=sel-&status=active`);
    assert.match(list.text, />Revoke selected</);
    const query = `key=${a.id}&key=${b.id}&q=sel-&status=active`;
    const confirm = await admin.get(`${base}/keys/revoke-selected?${query}`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /Revoke these 2 keys\?/);
    assert.match(confirm.text, /sel-a/);
    assert.match(confirm.text, /sel-b/);
    assert.doesNotMatch(confirm.text, /sel-c/);
    assert.equal(await inbox(a.key), 200, "the confirmation revokes nothing");
    const forged = await admin.post(`${base}/keys/revoke-selected`, [["key", a.id]], { csrf: "forged" });
    assert.equal(forged.status, 403);
    const done = await admin.post(`${base}/keys/revoke-selected`, [
      ["key", a.id],
      ["key", b.id],
      ["q", "sel-"],
      ["status", "active"],
    ]);
    assert.equal(done.status, 303);
    assert.equal(done.location, `${base}/keys?q=sel-&status=active&revoked=2`);
    assert.match((await admin.get(done.location!)).text, /2 keys are revoked\./);
    assert.deepEqual([await inbox(a.key), await inbox(b.key), await inbox(c.key)], [401, 401, 200]);
    for (const k of [a, b]) {
      assert.deepEqual((await audit("key.revoke", k.id)).map((e) => [e.actor, e.detail.reason]), [[
        "admin@example.com",
        "dashboard",
      ]]);
    }
  });

  test("Revoke selected with nothing selected says so and revokes nothing", async () => {
    const page = await admin.get(`${base}/keys/revoke-selected?q=x`);
    assert.match(page.text, /Select at least one active key/);
    assert.doesNotMatch(page.text, /method="post" action="[^"]*revoke-selected"/);
  });

  test("Revoke all keys of USER: shown on the list filtered to the user, the confirmation states the count", async () => {
    const keys = [await t.mintKey("mallory"), await t.mintKey("mallory"), await t.mintKey("mallory")];
    const bystander = await t.mintKey("mallory-2");
    await t.sdk("DELETE", `/v1/sdk/keys/${keys[2].id}`);
    assert.doesNotMatch((await admin.get(`${base}/keys`)).text, /Revoke all keys of/);
    const list = await admin.get(`${base}/keys?user=mallory`);
    assert.match(list.text, />Revoke all keys of mallory</);
    const confirm = await admin.get(`${base}/keys/revoke-all?user=mallory`);
    assert.match(confirm.text, /Revoke all <strong>2<\/strong> active keys of user <strong>mallory<\/strong>\?/);
    assert.match(confirm.text, />Revoke all 2 keys</);
    const done = await admin.post(`${base}/keys/revoke-all`, { user: "mallory" });
    assert.equal(done.location, `${base}/keys?user=mallory&revoked=2`);
    assert.deepEqual([await inbox(keys[0].key), await inbox(keys[1].key), await inbox(bystander.key)], [
      401,
      401,
      200,
    ]);
    const [action] = await audit("key.revoke_all", "mallory");
    assert.deepEqual([action.actor, action.detail], ["admin@example.com", { reason: "dashboard", revoked: 2 }]);
    assert.match((await admin.get(`${base}/keys/revoke-all?user=mallory`)).text, /mallory has no active key/);
  });

  test("Revoke all keys of USER matches the user id exactly: 'trent ' is not 'trent'", async () => {
    const spaced = await t.mintKey("trent ");
    const plain = await t.mintKey("trent");
    const confirm = await admin.get(`${base}/keys/revoke-all?user=${encodeURIComponent("trent ")}`);
    assert.match(confirm.text, /Revoke all <strong>1<\/strong> active key/);
    await admin.post(`${base}/keys/revoke-all`, { user: "trent " });
    assert.deepEqual([await inbox(spaced.key), await inbox(plain.key)], [401, 200], "only the spaced user's key");
  });

  test("a viewer sees no selection and no bulk buttons, and cannot post a bulk revoke", async () => {
    const k = await t.mintKey("victor", { name: "victor-key" });
    const list = await viewer.get(`${base}/keys?user=victor`);
    assert.match(list.text, /victor-key/);
    assert.doesNotMatch(list.text, /Revoke selected|Revoke all keys of|type="checkbox"/);
    await viewer.get(`${base}/keys/revoke-all?user=victor`);
    assert.equal((await viewer.post(`${base}/keys/revoke-all`, { user: "victor" })).status, 403);
    assert.equal((await viewer.post(`${base}/keys/revoke-selected`, [["key", k.id]])).status, 403);
    assert.equal(await inbox(k.key), 200);
  });
});
