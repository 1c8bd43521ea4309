// The Inbox page's dead letters, Redrive and Replay… forms, posted as an admin (CSRF, audited) and refused to a
// viewer; the browser's own run is dead_letters_browser_test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { signedIn, testAddress } from "./form_client.ts";

describe("the Inbox page: dead letters, Redrive and Replay…", () => {
  let t: TestCloud;
  let key: string;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    key = (await t.mintKey("dora")).key;
    await t.sdk("PUT", "/v1/sdk/policy", { body: { inbox: { maxDeliveries: 1 } } });
    await t.sdk("POST", "/v1/events/batch", { body: { events: [event("d-1", "dora"), event("d-2", "dora")] } });
    const leased = (await t.agent(key, "GET", "/v1/agent/inbox?lease=60")).body.items;
    await t.agent(key, "POST", "/v1/agent/leases/release", {
      body: { leaseIds: leased.map((i: { leaseId: string }) => i.leaseId), reason: "bad payload" },
    });
  });
  after(() => t.close());
  const base = () => `/dashboard/projects/${t.project.id}/inbox/dora`;

  test("lists the dead letters with their reason, and redrives one, then all, each audited", async () => {
    const admin = await signedIn(t, "dead@example.com");
    const page = await admin.get(base());
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2>Dead letters<\/h2>/);
    assert.match(page.text, /bad payload/);
    assert.match(page.text, /Redrive all 2 dead letters/);
    const inboxId = /action="[^"]*\/redrive">[\s\S]*?name="inboxId" value="(\d+)"/.exec(page.text)![1];
    const one = await admin.post(`${base()}/redrive`, { inboxId });
    assert.equal(one.status, 303);
    assert.match(one.headers.get("location")!, /redriven=1$/);
    const all = await admin.post(`${base()}/redrive`, {});
    assert.match(all.headers.get("location")!, /redriven=1$/);
    assert.deepEqual((await t.sdk("GET", "/v1/agents/dora/dead-letters")).body, { items: [] });
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).body.items.length, 2);
    const audited = await t.storage.audit.listAudit({ action: "inbox.redrive", limit: 5, offset: 0 });
    assert.deepEqual(audited.entries.map((e) => e.detail).reverse(), [
      { agentId: "dora", inboxIds: [Number(inboxId)] },
      { agentId: "dora", inboxIds: "all" },
    ]);
  });

  test("replays acknowledged items of a window, and refuses a time that is not one", async () => {
    const admin = await signedIn(t, "replay@example.com");
    await admin.get(base());
    const items = (await t.agent(key, "GET", "/v1/agent/inbox")).body.items;
    await t.agent(key, "POST", "/v1/agent/ack", {
      body: { inboxIds: items.map((i: { inboxId: number }) => i.inboxId) },
    });
    const bad = await admin.post(`${base()}/replay`, { since: "yesterday" });
    assert.equal(bad.status, 400);
    const done = await admin.post(`${base()}/replay`, { since: "2020-01-01", until: "" });
    assert.equal(done.status, 303);
    assert.match(done.headers.get("location")!, /replayed=2$/);
    const replayed = (await t.agent(key, "GET", "/v1/agent/inbox")).body.items;
    assert.deepEqual(
      replayed.map((i: { replayOf: number }) => i.replayOf),
      items.map((i: { inboxId: number }) => i.inboxId),
    );
    const audited = await t.storage.audit.listAudit({ action: "inbox.replay", limit: 5, offset: 0 });
    assert.equal(audited.total, 1);
  });

  test("a viewer sees the dead letters but no form, and a viewer's forged redrive is refused", async () => {
    const viewer = await signedIn(t, "viewer-dead@example.com", "viewer");
    const page = await viewer.get(base());
    assert.match(page.text, /<h2>Dead letters<\/h2>/);
    assert.doesNotMatch(page.text, /\/redrive"|\/replay"/);
    assert.equal((await viewer.post(`${base()}/redrive`, {})).status, 403);
  });
});
