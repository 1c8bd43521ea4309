// The dashboard's pages over real data, through handle() of a real cloud on
// libSQL: each action does what the API would, reaches the API at once, and
// lands in the audit log.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { event, startTestCloud, type TestCloud, violation } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";
import { settlesWithin, waitFor } from "../../fixtures/wait_for.ts";
import { waitingPolls } from "../../../cloud/create_cloud.ts";

describe("dashboard pages", () => {
  let t: TestCloud;
  let admin: FormClient;
  let base: string;
  before(async () => {
    t = await startTestCloud({ dashboard: { clientAddress: testAddress } });
    admin = await signedIn(t, "admin@example.com");
    base = `/dashboard/projects/${t.project.id}`;
  });
  after(() => t.close());

  const actions = async (action: string) => (await t.storage.audit.listAudit({ action, limit: 10, offset: 0 })).entries;

  test("create project shows the projectId and sdkSecret once, with a warning; a reload does not", async () => {
    await admin.get("/dashboard/projects");
    const created = await admin.post("/dashboard/projects", { name: "Shop" });
    assert.equal(created.status, 303);
    const shown = await admin.get(created.location!);
    const secret = /id="sdk-secret">(svcs_[A-Za-z0-9]+)</.exec(shown.text)?.[1];
    assert.ok(secret, "the secret is shown");
    assert.match(shown.text, /will not be shown again/);
    const projectId = /projects\/(prj_[0-9A-Z]+)\//.exec(created.location!)![1];
    const reload = await admin.get(created.location!);
    assert.doesNotMatch(reload.text, /svcs_/);
    const res = await t.sdk("GET", "/v1/sdk/intents", { as: { id: projectId, secret } });
    assert.equal(res.status, 200, "the shown secret works");
    assert.equal((await actions("project.create"))[0].target, projectId);
    assert.doesNotMatch(JSON.stringify(await t.storage.audit.listAudit({ limit: 100, offset: 0 })), /svcs_/);
  });

  test("refuses an empty or too long project name with a clear message", async () => {
    await admin.get("/dashboard/projects");
    const empty = await admin.post("/dashboard/projects", { name: "  " });
    assert.equal(empty.status, 400);
    assert.match(empty.text, /1 to 100 characters/);
    assert.equal((await admin.post("/dashboard/projects", { name: "x".repeat(101) })).status, 400);
  });

  test("escapes what users and apps typed: a name with markup is shown as text", async () => {
    await admin.get("/dashboard/projects");
    await admin.post("/dashboard/projects", { name: `<script>alert("x")</script>` });
    const list = await admin.get("/dashboard/projects");
    assert.doesNotMatch(list.text, /<script>alert/);
    assert.match(list.text, /&lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/);
  });

  test("revoke: the confirmation's button is 'Revoke key', and the agent's next inbox poll gets 401", async () => {
    const { key, id } = await t.mintKey("alice", { name: "alice's agent" });
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 200);
    const keys = await admin.get(`${base}/keys?user=alice&status=active`);
    assert.match(keys.text, /alice&#39;s agent/);
    assert.match(keys.text, new RegExp(`${base}/keys/${id}/revoke`));
    const confirm = await admin.get(`${base}/keys/${id}/revoke`);
    assert.match(confirm.text, />Revoke key</);
    const done = await admin.post(`${base}/keys/${id}/revoke`, {});
    assert.equal(done.status, 303);
    assert.equal((await t.agent(key, "GET", "/v1/agent/inbox")).status, 401);
    const [entry] = await actions("key.revoke");
    assert.deepEqual([entry.target, entry.detail.reason, entry.actor], [id, "dashboard", "admin@example.com"]);
    const revoked = await admin.get(`${base}/keys?status=revoked`);
    assert.match(revoked.text, /alice&#39;s agent/);
    assert.doesNotMatch((await admin.get(`${base}/keys?status=active&user=alice`)).text, /alice&#39;s agent/);
  });

  test("rotate: the confirmation's button is 'Rotate secret', the new secret is shown once, the old one is 401", async () => {
    const project = await t.newProject("Rotating");
    const settings = `/dashboard/projects/${project.id}/settings`;
    assert.match((await admin.get(`${settings}/rotate`)).text, />Rotate secret</);
    const rotated = await admin.post(`${settings}/rotate`, {});
    const shown = await admin.get(rotated.location!);
    const secret = /id="sdk-secret">(svcs_[A-Za-z0-9]+)</.exec(shown.text)![1];
    assert.equal((await t.sdk("GET", "/v1/sdk/intents", { as: project })).status, 401);
    assert.equal((await t.sdk("GET", "/v1/sdk/intents", { as: { id: project.id, secret } })).status, 200);
    assert.doesNotMatch((await admin.get(rotated.location!)).text, /svcs_/);
    assert.equal((await actions("project.rotate_secret"))[0].target, project.id);
  });

  test("violations: the API's filters, order, paging and total; bad filters are explained", async () => {
    const keyId = crypto.randomUUID();
    for (let i = 0; i < 55; i++) {
      const res = await t.sdk("POST", "/v1/sdk/violations", {
        body: {
          violation: violation({
            apiKeyId: i < 52 ? keyId : crypto.randomUUID(),
            severity: i % 2 ? "severe" : "info",
            message: `m${i}`,
            at: new Date(Date.now() - (55 - i) * 1000).toISOString(),
          }),
        },
      });
      assert.equal(res.status, 200);
    }
    const page1 = await admin.get(`${base}/violations?key=${keyId}`);
    assert.match(page1.text, /<strong>52<\/strong> violations match/);
    assert.ok(page1.text.indexOf(">m51<") < page1.text.indexOf(">m50<"), "newest first");
    assert.match(page1.text, /Page 1 of 2/);
    const page2 = await admin.get(`${base}/violations?key=${keyId}&page=2`);
    assert.match(page2.text, />m0</);
    assert.doesNotMatch(page2.text, />m51</);
    const api = await t.sdk("GET", `/v1/sdk/violations?keyId=${keyId}&severity=severe`);
    const severe = await admin.get(`${base}/violations?key=${keyId}&severity=severe`);
    assert.match(severe.text, new RegExp(`<strong>${api.body.total}</strong> violations match`));
    assert.match(severe.text, /<svg class="chart"[^>]*role="img"/);
    const bad = await admin.get(`${base}/violations?severity=loud&since=yesterday`);
    assert.equal(bad.status, 400);
    assert.match(bad.text, /severity/);
    assert.match(bad.text, /since/);
  });

  test("overview: keys, manifest, charts with text alternatives and the inbox backlog", async () => {
    await t.sdk("POST", "/v1/events", { body: event("ov-1", "bob") });
    const overview = await admin.get(base);
    assert.equal(overview.status, 200);
    assert.match(overview.text, /keys active/);
    assert.match(overview.text, /keys revoked/);
    assert.match(overview.text, /inbox items waiting/);
    assert.match(overview.text, /Violations of the last 24 hours, by hour and severity/);
    assert.match(overview.text, /Violations of the last 30 days, by day and severity/);
    assert.match(overview.text, /<desc id="chart-24h-desc">\d+ info, \d+ warning, \d+ severe/);
  });

  test("inbox: per agentId backlog, the events, and an admin discards a stuck item", async () => {
    await t.sdk("POST", "/v1/events", { body: event("stuck-1", "carol") });
    await t.sdk("POST", "/v1/events", { body: event("stuck-2", "carol") });
    const { key } = await t.mintKey("carol");
    await t.agent(key, "GET", "/v1/agent/inbox");
    const inboxes = await admin.get(`${base}/inbox`);
    assert.match(inboxes.text, /<code>carol<\/code><\/a><\/td>\s*<td>2<\/td>/);
    const inbox = await admin.get(`${base}/inbox/carol`);
    assert.match(inbox.text, /stuck-1/);
    const inboxId = /name="inboxId" value="(\d+)"/.exec(inbox.text)![1];
    const discarded = await admin.post(`${base}/inbox/carol/discard`, { inboxId });
    assert.equal(discarded.status, 303);
    const items = (await t.agent(key, "GET", "/v1/agent/inbox")).body.items;
    assert.deepEqual(items.map((i: { eventId: string }) => i.eventId), ["stuck-2"]);
    assert.equal((await actions("inbox.discard"))[0].target, inboxId);
    assert.equal((await admin.post(`${base}/inbox/carol/discard`, { inboxId })).status, 404);
    assert.equal((await admin.post(`${base}/inbox/carol/discard`, { inboxId: "x" })).status, 400);
  });

  test("inbox: a short payload on one line; a long one as its start, opening to the whole of it", async () => {
    const long = { order: { id: "ord_1", lines: Array.from({ length: 5 }, (_, i) => ({ sku: `sku-${i}`, qty: i })) } };
    await t.sdk("POST", "/v1/events", { body: event("short-1", "frank") });
    await t.sdk("POST", "/v1/events", { body: event("long-1", "frank", { payload: long }) });
    const page = (await admin.get(`${base}/inbox/frank`)).text;
    const row = (eventId: string) => page.split("<tr>").find((r) => r.includes(`<code>${eventId}</code>`))!;
    assert.match(row("short-1"), /<td><code>\{&quot;n&quot;:&quot;short-1&quot;\}<\/code><\/td>/);
    assert.doesNotMatch(row("short-1"), /<details/);
    const cell = row("long-1");
    const summary = /<summary><code>([^<]*)…<\/code><\/summary>/.exec(cell)![1];
    assert.equal(summary.replaceAll("&quot;", '"'), JSON.stringify(long).slice(0, 60));
    const pretty = /<pre>([\s\S]*?)<\/pre>/.exec(cell)![1].replaceAll("&quot;", '"');
    assert.deepEqual(JSON.parse(pretty), long);
    assert.match(pretty, /\n {2}"order": \{/, "pretty-printed");
  });

  test("intents: the allowed scopes of the app are shown apart from each intent's required scopes", async () => {
    const project = await t.newProject("Scoped");
    const intents = [
      { name: "orders.refund", title: "Refund", requiredScopes: ["orders:write"], input: {}, output: {} },
      { name: "orders.list", title: "List", requiredScopes: [], input: {}, output: {} },
    ];
    const scopes = ["orders:read", "orders:write", "reports:export"];
    assert.equal((await t.sdk("PUT", "/v1/sdk/intents", { body: { intents, scopes }, as: project })).status, 200);
    const page = (await admin.get(`/dashboard/projects/${project.id}/intents`)).text;
    const [beforeIntents, ...sections] = page.split("<section");
    const section = (name: string) => sections.find((s) => s.includes(`id="intent-${name}"`))!.split("</section>")[0];
    assert.match(beforeIntents, /Allowed scopes: orders:read, orders:write, reports:export\./);
    assert.match(section("orders.refund"), /Required scopes: orders:write</);
    assert.match(section("orders.list"), /Required scopes: none</);
    for (const name of ["orders.refund", "orders.list"]) {
      assert.doesNotMatch(section(name), /reports:export|orders:read|Allowed scopes/, name);
    }
  });

  test("inbox: an inbox's acknowledged items with when, all its items, and any inbox opened by agentId", async () => {
    await t.sdk("POST", "/v1/events", { body: event("handled-1", "dave") });
    const { key } = await t.mintKey("dave");
    const polled = (await t.agent(key, "GET", "/v1/agent/inbox")).body.items;
    await t.agent(key, "POST", "/v1/agent/ack", { body: { inboxIds: [polled[0].inboxId] } });
    await t.sdk("POST", "/v1/events", { body: event("waiting-2", "dave") });
    const waiting = await admin.get(`${base}/inbox/dave`);
    assert.match(waiting.text, /<strong>1<\/strong> items waiting in <code>dave<\/code>/);
    assert.doesNotMatch(waiting.text, /handled-1/);
    const acknowledged = await admin.get(`${base}/inbox/dave?status=acknowledged`);
    assert.match(acknowledged.text, /<strong>1<\/strong> acknowledged items in <code>dave<\/code>/);
    assert.match(acknowledged.text, /handled-1<\/code><\/td>(?:(?!<\/tr>)[\s\S])*<time datetime="20\d\d-/);
    assert.doesNotMatch(acknowledged.text, /waiting-2|Discard/);
    const all = await admin.get(`${base}/inbox/dave?status=all`);
    assert.match(all.text, /waiting-2[\s\S]*handled-1/, "newest first");
    assert.equal((all.text.match(/>Discard</g) ?? []).length, 1, "only a waiting item can be discarded");
    const opened = await admin.get(`${base}/inbox?agentId=+dave+`);
    assert.deepEqual([opened.status, opened.location], [303, `${base}/inbox/dave?status=all`]);
  });

  test("inbox: how many of the inbox's long polls wait on this server, that is, whether its agent listens", async () => {
    const { key } = await t.mintKey("erin");
    const page = async () => (await admin.get(`${base}/inbox/erin`)).text;
    assert.match(await page(), /<strong>0<\/strong> long polls of this inbox waiting on this server\./);
    const poll = t.agent(key, "GET", "/v1/agent/inbox?wait=20");
    await waitFor("the poll to be held", () => waitingPolls(t.cloud) === 1);
    assert.match(
      await page(),
      /<strong>1<\/strong> long poll of this inbox waiting on this server \(its agent is listening\)\./,
    );
    assert.match((await admin.get(`${base}/inbox/dave`)).text, /<strong>0<\/strong> long polls of this inbox/);
    await t.sdk("POST", "/v1/events", { body: event("wakes-erin", "erin") });
    assert.equal((await poll).body.items[0].eventId, "wakes-erin");
    await waitFor("the poll to be released", () => waitingPolls(t.cloud) === 0);
    assert.match(await page(), /<strong>0<\/strong> long polls of this inbox waiting on this server\./);
  });

  test("intents: the uploaded manifest and when it was uploaded", async () => {
    const intent = {
      name: "orders.refund",
      title: "Refund an order",
      requiredScopes: ["orders:write"],
      input: { type: "object", properties: { orderId: { type: "string" } } },
      output: { type: "object" },
    };
    const put = await t.sdk("PUT", "/v1/sdk/intents", { body: { intents: [intent], scopes: ["orders:write"] } });
    assert.equal(put.status, 200);
    const page = await admin.get(`${base}/intents`);
    for (const text of ["orders.refund", "Refund an order", "orders:write", "orderId", "Uploaded"]) {
      assert.match(page.text, new RegExp(text));
    }
  });

  test("settings: rename, retention and delete behind typing the name, each in the audit log", async () => {
    const project = await t.newProject("Doomed");
    const settings = `/dashboard/projects/${project.id}/settings`;
    await admin.get(settings);
    assert.equal((await admin.post(`${settings}/rename`, { name: "Renamed" })).status, 303);
    assert.equal((await t.storage.projects.findProject(project.id))?.name, "Renamed");
    assert.equal((await admin.post(`${settings}/retention`, { days: "2" })).status, 303);
    assert.equal((await t.storage.projects.projectPolicy(project.id)).retentionMs, 2 * 86_400_000);
    assert.equal((await admin.post(`${settings}/retention`, { days: "-1" })).status, 400);
    assert.equal((await admin.post(`${settings}/retention`, { days: "1.5" })).status, 400);
    assert.equal((await admin.post(`${settings}/retention`, { days: "" })).status, 303);
    assert.equal((await t.storage.projects.projectPolicy(project.id)).retentionMs, null);
    const wrong = await admin.post(`${settings}/delete`, { confirm: "Doomed" });
    assert.equal(wrong.status, 400);
    assert.ok(await t.storage.projects.findProject(project.id));
    assert.equal((await admin.post(`${settings}/delete`, { confirm: "Renamed" })).status, 303);
    assert.equal(await t.storage.projects.findProject(project.id), null);
    assert.equal((await t.sdk("GET", "/v1/sdk/intents", { as: project })).status, 401);
    for (const action of ["project.rename", "policy.retention", "project.delete"]) {
      assert.ok((await actions(action)).some((e) => e.projectId === project.id), action);
    }
    assert.equal((await admin.get(settings)).status, 404);
  });

  test("settings: the auto-revoke policy is shown, set as PUT /v1/sdk/policy would, refused when wrong, and turned off", async () => {
    const project = await t.newProject("Guarded");
    const settings = `/dashboard/projects/${project.id}/settings`;
    assert.match((await admin.get(settings)).text, /id="auto-revoke-state">Off/);
    const saved = await admin.post(`${settings}/auto-revoke`, {
      threshold: "3",
      windowMinutes: "10",
      kinds: "FORBIDDEN_SCOPE, UNKNOWN_INTENT",
      severities: "severe",
    });
    assert.equal(saved.status, 303);
    const policy = {
      threshold: 3,
      windowMinutes: 10,
      kinds: ["FORBIDDEN_SCOPE", "UNKNOWN_INTENT"],
      severities: ["severe"],
    };
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/policy", { as: project })).body.autoRevoke, policy);
    const page = await admin.get(saved.location!);
    assert.match(page.text, /The auto-revoke policy is saved/);
    assert.match(page.text, /On: 3 counted violations of one key within 10 minutes revoke it/);
    const wrong = await admin.post(`${settings}/auto-revoke`, { threshold: "0", windowMinutes: "ten" });
    assert.equal(wrong.status, 400);
    assert.match(wrong.text, /violations that revoke a key, within minutes/);
    const nothing = await admin.post(`${settings}/auto-revoke`, { threshold: "2", windowMinutes: "5", kinds: "" });
    assert.match(nothing.text, /at least one kind or severity/);
    assert.deepEqual((await t.sdk("GET", "/v1/sdk/policy", { as: project })).body.autoRevoke, policy, "unchanged");
    assert.equal((await admin.post(`${settings}/auto-revoke/off`, {})).status, 303);
    assert.equal((await t.sdk("GET", "/v1/sdk/policy", { as: project })).body.autoRevoke, null);
    const entries = (await actions("policy.auto_revoke")).filter((e) => e.projectId === project.id);
    assert.deepEqual(entries.map((e) => [e.actor, e.detail.autoRevoke]), [
      ["admin@example.com", null],
      ["admin@example.com", policy],
    ]);
  });

  test("each project action is recorded once, by the operator, from the operator's address", async () => {
    await admin.get("/dashboard/projects");
    const created = await admin.post("/dashboard/projects", { name: "Audited" });
    const projectId = /projects\/(prj_[0-9A-Z]+)\//.exec(created.location!)![1];
    await admin.post(`/dashboard/projects/${projectId}/settings/rotate`, {});
    for (const action of ["project.create", "project.rotate_secret"]) {
      const entries = (await actions(action)).filter((e) => e.projectId === projectId);
      assert.deepEqual(entries.map((e) => e.actor), ["admin@example.com"], action);
      assert.match(entries[0].sourceAddress ?? "", /^10\.0\.0\./);
    }
  });

  test("the audit log shows who did what, from where, with filters and paging", async () => {
    const log = await admin.get(`${base}/audit?action=key.revoke`);
    assert.match(log.text, /admin@example.com/);
    assert.match(log.text, /key\.revoke/);
    assert.match(log.text, /10\.0\.0\./);
    // No row of another action (the Action select lists every known action, project.create among them).
    assert.doesNotMatch(log.text, /<code>project\.create<\/code>/);
    assert.match(log.text, /<code>key\.revoke<\/code>/);
    const all = await admin.get("/dashboard/audit?since=2000-01-01");
    assert.match(all.text, /operator\.sign_in/);
    assert.match((await admin.get("/dashboard/audit?since=nonsense")).text, /was ignored/);
  });

  test("the audit log pages: 60 entries are 50 on page 1 and the other 10 on page 2, with next and previous links", async () => {
    const project = await t.newProject("Paged");
    for (let i = 0; i < 60; i++) {
      await t.storage.audit.appendAudit({
        projectId: project.id,
        actor: "cli",
        action: "test.paged",
        target: `entry-${String(i).padStart(2, "0")}`,
        detail: {},
        sourceAddress: null,
        createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
      });
    }
    const log = `/dashboard/projects/${project.id}/audit`;
    const targets = (text: string) => [...text.matchAll(/<td>(entry-\d\d)<\/td>/g)].map((m) => m[1]);
    const first = await admin.get(`${log}?action=test.paged`);
    assert.match(first.text, /<strong>60<\/strong> entries/);
    assert.match(first.text, /Page 1 of 2/);
    const shown = targets(first.text);
    assert.equal(shown.length, 50);
    assert.deepEqual([shown[0], shown[49]], ["entry-59", "entry-10"], "newest first");
    assert.match(first.text, new RegExp(`<a href="${log}\\?action=test.paged&amp;page=2" rel="next">Next page</a>`));
    assert.doesNotMatch(first.text, /rel="prev"/);

    const second = await admin.get(`${log}?action=test.paged&page=2`);
    assert.match(second.text, /Page 2 of 2/);
    assert.deepEqual(targets(second.text), Array.from({ length: 10 }, (_, i) => `entry-0${9 - i}`), "the rest");
    assert.match(
      second.text,
      new RegExp(`<a href="${log}\\?action=test.paged&amp;page=1" rel="prev">Previous page</a>`),
    );
    assert.doesNotMatch(second.text, /rel="next"/);
  });

  test("a revoke in the dashboard wakes the revocation feed's waiting poll at once, not at its next re-check", async () => {
    // A re-check far beyond the poll's wait: only the in-process wake-up can answer it with the revocation.
    const slow = await startTestCloud({ recheckMs: 60_000, dashboard: { clientAddress: testAddress } });
    try {
      const operator = await signedIn(slow, "admin@example.com");
      const { id } = await slow.mintKey("dave");
      const poll = slow.sdk("GET", "/v1/sdk/keys/revocations?after=0&wait=20");
      await waitFor("the poll to be held", () => waitingPolls(slow.cloud) === 1);
      const keysPage = `/dashboard/projects/${slow.project.id}/keys`;
      await operator.get(`${keysPage}/${id}/revoke`);
      assert.equal((await operator.post(`${keysPage}/${id}/revoke`, {})).status, 303);
      // Woken, the poll answers within milliseconds; not woken, only when its 20 s wait ends.
      const answer = await settlesWithin(poll, 10_000, "the feed's poll, woken by the revoke");
      assert.deepEqual(answer.body.revocations.map((r: { keyId: string; reason: string }) => [r.keyId, r.reason]), [
        [id, "dashboard"],
      ]);
    } finally {
      await slow.close();
    }
  });

  test("unknown projects, keys and pages are 404 pages", async () => {
    assert.equal((await admin.get("/dashboard/projects/prj_unknown")).status, 404);
    assert.equal((await admin.get(`${base}/keys/nope/revoke`)).status, 404);
    assert.equal((await admin.get("/dashboard/nowhere")).status, 404);
  });
});
