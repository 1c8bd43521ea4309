// The lesser dashboard findings of the third review: an inbox item cannot be
// discarded through another agent's URL, a malformed `%` escape in a
// signed-in path is a 400 without a logged stack, and the cookies carry the
// `__Host-` prefix when served over https.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../fixtures/test_cloud.ts";
import { formClient, signedIn, testAddress } from "../cloud/dashboard/form_client.ts";
import { createOperator, OPERATOR_PASSWORD } from "../cloud/dashboard/operator_fixture.ts";

describe("dashboard: discards and malformed paths", () => {
  let t: TestCloud;
  const logged: string[] = [];
  before(async () => {
    t = await startTestCloud({
      dashboard: { clientAddress: testAddress },
      logger: (message: string) => logged.push(message),
    } as never);
  });
  after(() => t.close());

  test("discarding an item through another agent's URL is refused (404) and audits nothing", async () => {
    const admin = await signedIn(t, "discard@example.com");
    await t.sdk("POST", "/v1/events", { body: event("alices-1", "alice") });
    const base = `/dashboard/projects/${t.project.id}`;
    const inbox = await admin.get(`${base}/inbox/alice`);
    const inboxId = /name="inboxId" value="(\d+)"/.exec(inbox.text)![1];
    const wrong = await admin.post(`${base}/inbox/mallory/discard`, { inboxId });
    assert.equal(wrong.status, 404);
    assert.equal((await t.storage.audit.listAudit({ action: "inbox.discard", limit: 5, offset: 0 })).total, 0);
    const right = await admin.post(`${base}/inbox/alice/discard`, { inboxId });
    assert.equal(right.status, 303);
    const audited = await t.storage.audit.listAudit({ action: "inbox.discard", limit: 5, offset: 0 });
    assert.deepEqual(audited.entries.map((e) => e.detail), [{ agentId: "alice" }]);
  });

  test("a malformed % escape in a signed-in path is a 400 with no stack logged", async () => {
    const admin = await signedIn(t, "percent@example.com");
    const before = logged.length;
    const res = await admin.get(`/dashboard/projects/${t.project.id}/inbox/%E0%A4%A`);
    assert.equal(res.status, 400);
    assert.equal(logged.length, before, logged.slice(before).join("\n"));
  });
});

describe("dashboard cookies over https", () => {
  let t: TestCloud;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress, publicUrl: "https://svc.example.com" } });
  });
  after(() => t.close());

  test("the session and pre-session cookies are __Host- cookies: Secure, Path=/, no Domain", async () => {
    await createOperator(t.storage, "host@example.com");
    const browser = formClient(t.cloud.handle, "https://svc.example.com");
    const page = await browser.get("/dashboard/sign-in");
    const signedIn = await browser.post("/dashboard/sign-in", {
      email: "host@example.com",
      password: OPERATOR_PASSWORD,
    });
    assert.equal(signedIn.status, 303);
    const cookies = [...page.headers.getSetCookie(), ...signedIn.headers.getSetCookie()];
    assert.equal(cookies.length, 2);
    for (const c of cookies) {
      assert.match(c, /^__Host-/, c);
      assert.match(c, /; Secure/, c);
      assert.match(c, /; Path=\/(;|$)/, c);
      assert.doesNotMatch(c, /Domain=/i, c);
    }
    assert.equal((await browser.get("/dashboard/projects")).status, 200, "the session works");
  });

  test("over plain http (local development) the cookies keep working without the prefix", async () => {
    const local = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    try {
      await createOperator(local.storage, "local@example.com");
      const browser = formClient(local.cloud.handle);
      await browser.get("/dashboard/sign-in");
      const res = await browser.post("/dashboard/sign-in", { email: "local@example.com", password: OPERATOR_PASSWORD });
      assert.equal(res.status, 303);
      assert.doesNotMatch(res.headers.getSetCookie()[0], /Secure/);
      assert.equal((await browser.get("/dashboard/projects")).status, 200);
    } finally {
      await local.close();
    }
  });
});
