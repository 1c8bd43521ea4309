// Returning to a filtered list after a revoke: the keys list's filters travel through the confirmation and its post,
// on a real cloud over libSQL; only a query string is ever kept.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { keptQuery, listPath } from "../../../cloud/dashboard/list_return.ts";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";

test("keptQuery() keeps the filters, drops the notice, and never keeps a path or an overlong query", () => {
  assert.equal(keptQuery("?user=alice&status=active&revoked=1", ["revoked"]), "user=alice&status=active");
  assert.equal(keptQuery("user=a%20b&page=2"), "user=a+b&page=2");
  assert.equal(keptQuery("//evil.example/x?user=a"), "%2F%2Fevil.example%2Fx%3Fuser=a");
  assert.equal(keptQuery(null), "");
  assert.equal(keptQuery(`user=${"a".repeat(1000)}`), "");
  assert.equal(listPath("/dashboard/projects/p/keys", "", "revoked=1"), "/dashboard/projects/p/keys?revoked=1");
  assert.equal(listPath("/k", "user=a", "revoked=1"), "/k?user=a&revoked=1");
});

describe("a revoke from a filtered keys list", () => {
  let t: TestCloud;
  let admin: FormClient;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
  });
  after(() => t.close());

  test("returns to the same filters, through the confirmation and its Cancel link", async () => {
    const base = `/dashboard/projects/${t.project.id}`;
    const { id } = await t.mintKey("alice", { name: "alice-agent" });
    await t.mintKey("bob", { name: "bob-agent" });
    const list = await admin.get(`${base}/keys?user=alice&status=active`);
    assert.match(list.text, /name="back" value="user=alice&amp;status=active"/);
    const confirm = await admin.get(`${base}/keys/${id}/revoke?back=${encodeURIComponent("user=alice&status=active")}`);
    assert.match(confirm.text, new RegExp(`<a href="${base}/keys\\?user=alice&amp;status=active">Cancel</a>`));
    const done = await admin.post(`${base}/keys/${id}/revoke`, { back: "user=alice&status=active" });
    assert.equal(done.status, 303);
    assert.equal(done.location, `${base}/keys?user=alice&status=active&revoked=1`);
    const after = await admin.get(done.location!);
    assert.match(after.text, /The key is revoked/);
    assert.doesNotMatch(after.text, /bob-agent/, "still filtered to alice");
  });
});
