// The operators page through handle() of a real cloud on libSQL: admins only, every change after the password again,
// an invite link shown once that joins once with its role, role changes and removals that end sessions, all audited.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { type FormClient, formClient, signedIn, testAddress } from "./form_client.ts";
import { OPERATOR_PASSWORD } from "./operator_fixture.ts";

describe("the operators page", () => {
  let t: TestCloud;
  let admin: FormClient;
  let viewer: FormClient;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
    viewer = await signedIn(t, "viewer@example.com", "viewer");
  });
  after(() => t.close());

  const entries = async (action: string) =>
    (await t.storage.audit.listAudit({ action, limit: 10, offset: 0 })).entries.map((e) => [e.actor, e.target]);

  test("viewers get 403 on every operators page and post, and no Operators link", async () => {
    const projects = await viewer.get("/dashboard/projects");
    assert.doesNotMatch(projects.text, /href="\/dashboard\/operators"/);
    const someone = (await t.storage.operators.findOperatorByEmail("admin@example.com"))!;
    for (const path of ["/dashboard/operators", `/dashboard/operators/${someone.id}/role`]) {
      assert.equal((await viewer.get(path)).status, 403, path);
    }
    assert.equal((await viewer.get(`/dashboard/operators/${someone.id}/remove`)).status, 403);
    for (const path of ["/dashboard/operators/invite", `/dashboard/operators/${someone.id}/remove`]) {
      const res = await viewer.post(path, { email: "x@example.com", role: "admin", password: OPERATOR_PASSWORD });
      assert.equal(res.status, 403, path);
    }
    assert.equal((await t.storage.operators.findOperatorByEmail("admin@example.com"))?.role, "admin");
    assert.match((await admin.get("/dashboard/projects")).text, /href="\/dashboard\/operators"/);
  });

  test("an invite needs the password again and the form's CSRF token", async () => {
    await admin.get("/dashboard/operators");
    const wrong = await admin.post("/dashboard/operators/invite", {
      email: "a@example.com",
      role: "viewer",
      password: "nope",
    });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /password or code is not valid/);
    const forged = await admin.post("/dashboard/operators/invite", {
      email: "a@example.com",
      role: "viewer",
      password: OPERATOR_PASSWORD,
    }, { csrf: null });
    assert.equal(forged.status, 403);
    assert.deepEqual(await entries("operator.invite"), []);
  });

  test("the invite link is shown once, joins once with its role and signs the new operator in", async () => {
    await admin.get("/dashboard/operators");
    const shown = await admin.post("/dashboard/operators/invite", {
      email: "New@Example.com",
      role: "admin",
      password: OPERATOR_PASSWORD,
    });
    assert.equal(shown.status, 200);
    assert.match(shown.text, /will not be shown again/);
    const link = /id="invite-link">([^<]+)</.exec(shown.text)![1].replaceAll("&amp;", "&");
    assert.match(link, /^http:\/\/cloud\.test\/dashboard\/invite\?token=svci_[A-Za-z0-9]{40}$/);
    assert.doesNotMatch((await admin.get("/dashboard/operators")).text, /svci_/, "not shown on the list");
    const newcomer = formClient(t.cloud.handle);
    const path = link.slice("http://cloud.test".length);
    const form = await newcomer.get(path);
    assert.equal(form.status, 200);
    assert.match(form.text, /new@example\.com/);
    assert.match(form.text, /<h1>Join as admin<\/h1>/);
    assert.equal((await newcomer.post(path, { password: "short" })).status, 400);
    const joined = await newcomer.post(path, { password: "a long enough password" });
    assert.equal(joined.status, 303);
    assert.equal(joined.location, "/dashboard/projects");
    assert.equal((await newcomer.get("/dashboard/operators")).status, 200, "signed in, as an admin");
    const again = formClient(t.cloud.handle);
    assert.equal((await again.get(path)).status, 410);
    assert.deepEqual(await entries("operator.invite"), [["admin@example.com", "new@example.com"]]);
    assert.deepEqual(await entries("operator.join"), [["new@example.com", "new@example.com"]]);
  });

  test("change role: the confirmation's button is 'Change role', the operator's sessions end, the change is audited", async () => {
    const changed = await signedIn(t, "changed@example.com", "viewer");
    const op = (await t.storage.operators.findOperatorByEmail("changed@example.com"))!;
    const list = await admin.get("/dashboard/operators");
    assert.match(
      list.text,
      new RegExp(
        `href="/dashboard/operators/${op.id}/role">Change role<span class="visually-hidden"> of changed@example.com<`,
      ),
    );
    const form = await admin.get(`/dashboard/operators/${op.id}/role`);
    assert.match(form.text, />Change role</);
    const done = await admin.post(`/dashboard/operators/${op.id}/role`, { role: "admin", password: OPERATOR_PASSWORD });
    assert.equal(done.status, 303);
    assert.equal((await t.storage.operators.findOperator(op.id))?.role, "admin");
    assert.equal((await changed.get("/dashboard/projects")).location, "/dashboard/sign-in", "signed out");
    assert.deepEqual((await entries("operator.role"))[0], ["admin@example.com", "changed@example.com"]);
  });

  test("remove: ends the operator's sessions; no Remove for oneself, and removing oneself is refused", async () => {
    const removed = await signedIn(t, "removed@example.com", "viewer");
    const op = (await t.storage.operators.findOperatorByEmail("removed@example.com"))!;
    const me = (await t.storage.operators.findOperatorByEmail("admin@example.com"))!;
    const list = await admin.get("/dashboard/operators");
    assert.match(list.text, />Remove<span class="visually-hidden"> removed@example\.com</);
    assert.doesNotMatch(list.text, /Remove<span class="visually-hidden"> admin@example\.com/);
    assert.match((await admin.get(`/dashboard/operators/${op.id}/remove`)).text, />Remove operator</);
    const wrong = await admin.post(`/dashboard/operators/${op.id}/remove`, { password: "nope" });
    assert.equal(wrong.status, 400);
    assert.ok(await t.storage.operators.findOperator(op.id), "not removed without the password");
    const done = await admin.post(`/dashboard/operators/${op.id}/remove`, { password: OPERATOR_PASSWORD });
    assert.equal(done.status, 303);
    assert.equal(await t.storage.operators.findOperator(op.id), null);
    assert.equal((await removed.get("/dashboard/projects")).location, "/dashboard/sign-in");
    assert.deepEqual((await entries("operator.remove"))[0], ["admin@example.com", "removed@example.com"]);
    assert.equal((await admin.get(`/dashboard/operators/${me.id}/remove`)).status, 400);
    await admin.get("/dashboard/operators");
    const self = await admin.post(`/dashboard/operators/${me.id}/remove`, { password: OPERATOR_PASSWORD });
    assert.equal(self.status, 400);
    assert.ok(await t.storage.operators.findOperator(me.id));
  });
});
