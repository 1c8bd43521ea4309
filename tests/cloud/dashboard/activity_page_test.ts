// The Activity page and a key's activity, through handle() of a real cloud on libSQL: filters, the search by key or
// user, cursor paging, outcomes in words, another project's records never shown; the key page's recent runs and its
// 7-day chart of runs and refusals by hour.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { activityRecords } from "../../fixtures/activity_records.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";
import type { ActivityRecord } from "../../../core/contract/mod.ts";

const NOW = Date.parse("2026-11-20T12:00:00.000Z");

/** The record ids a page lists, in order (each row's time names its record). */
function listedAts(text: string): string[] {
  return [...text.matchAll(/<time datetime="([^"]+)"/g)].map((m) => m[1]);
}

describe("the Activity page", () => {
  let t: TestCloud;
  let admin: FormClient;
  let base: string;
  let keyId: string;
  let records: ActivityRecord[];
  before(async () => {
    t = await startTestCloud({ now: () => NOW, dashboard: { clientAddress: testAddress, now: () => NOW } });
    admin = await signedIn(t, "admin@example.com");
    base = `/dashboard/projects/${t.project.id}`;
    keyId = (await t.mintKey("alice", { name: "support-bot" })).id;
    records = activityRecords(60, NOW - 60_000, (i) => ({
      keyId: i % 2 ? keyId : "key_other",
      userId: i % 2 ? "alice" : "bob",
      intent: i % 3 ? "notes.list" : "notes.delete",
      outcome: i % 5 === 0 ? "refused" : "ok",
      status: i % 5 === 0 ? 403 : 200,
      ...(i % 5 === 0 ? { code: "FORBIDDEN_SCOPE" } : {}),
    }));
    await t.sdk("POST", "/v1/sdk/activity/batch", { body: { activity: records } });
  });
  after(() => t.close());

  test("the navigation names Activity; the page lists newest first with outcomes in words", async () => {
    const page = await admin.get(`${base}/activity`);
    assert.equal(page.status, 200);
    assert.match(page.text, new RegExp(`<a href="${base}/activity"\\s+aria-current="page"\\s+>Activity</a>`));
    assert.deepEqual(listedAts(page.text), records.slice(-50).reverse().map((r) => r.at));
    assert.match(page.text, /<span class="outcome outcome-refused">refused<\/span>\s+<code>FORBIDDEN_SCOPE<\/code>/);
    assert.match(page.text, /<span class="outcome outcome-ok">ok<\/span>/);
    assert.match(page.text, /<label for="outcome">Outcome<\/label>/);
    // A key the cloud holds is named; one it does not (a local-mode app's) shows its id alone.
    assert.match(page.text, new RegExp(`<strong>support-bot</strong><br><a href="${base}/activity\\?key=${keyId}"`));
    assert.match(page.text, new RegExp(`<td><a href="${base}/activity\\?key=key_other"`));
  });

  test("pages by cursor: Older, then Newest", async () => {
    const first = await admin.get(`${base}/activity`);
    const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.text)![1].replaceAll("&amp;", "&");
    const second = await admin.get(older);
    assert.deepEqual(listedAts(second.text), records.slice(0, 10).reverse().map((r) => r.at));
    assert.match(second.text, new RegExp(`<a href="${base}/activity">Newest</a>`));
    assert.doesNotMatch(second.text, /rel="next"/);
  });

  test("filters by key, user, intent and outcome, and searches a key or a user", async () => {
    const ats = (f: (r: ActivityRecord) => boolean) => records.filter(f).reverse().map((r) => r.at).slice(0, 50);
    const list = async (q: string) => listedAts((await admin.get(`${base}/activity?${q}`)).text);
    assert.deepEqual(await list(`key=${keyId}`), ats((r) => r.keyId === keyId));
    assert.deepEqual(await list("user=bob&outcome=refused"), ats((r) => r.userId === "bob" && r.outcome === "refused"));
    assert.deepEqual(await list("intent=notes.delete"), ats((r) => r.intent === "notes.delete"));
    assert.deepEqual(await list("q=bob"), ats((r) => r.userId === "bob"));
    assert.deepEqual(
      await list(`q=${keyId}&outcome=refused`),
      ats((r) => r.keyId === keyId && r.outcome === "refused"),
    );
    assert.match((await admin.get(`${base}/activity?q=nobody`)).text, /No activity matches/);
  });

  test("a malformed filter is a 400 page with the reason", async () => {
    const page = await admin.get(`${base}/activity?outcome=maybe`);
    assert.equal(page.status, 400);
    assert.match(page.text, /Check the filters\. outcome:/);
  });

  test("another project's page shows none of these records", async () => {
    const other = await t.newProject("Other");
    const page = await admin.get(`/dashboard/projects/${other.id}/activity`);
    assert.equal(page.status, 200);
    assert.match(page.text, /No activity matches/);
  });

  test("the key page shows the key's recent runs and its 7-day chart of runs and refusals", async () => {
    const page = await admin.get(`${base}/keys/${keyId}`);
    assert.equal(page.status, 200);
    const own = records.filter((r) => r.keyId === keyId);
    assert.match(page.text, /<h2>Recent activity<\/h2>/);
    assert.deepEqual(
      listedAts(page.text.slice(page.text.indexOf("Recent activity"), page.text.indexOf("Recent violations")))
        .slice(0, 10),
      own.slice(-10).reverse().map((r) => r.at),
    );
    assert.match(page.text, new RegExp(`<a href="${base}/activity\\?key=${keyId}">All activity of this key</a>`));
    const refusals = own.filter((r) => r.outcome === "refused").length;
    assert.match(
      page.text,
      new RegExp(`<desc id="chart-key-activity-desc">${refusals} refusals, ${own.length - refusals} other runs;`),
    );
    assert.match(page.text, /<span class="swatch refused"><\/span>refusals/);
    assert.match(page.text, /<rect class="refused"/);
  });
});
