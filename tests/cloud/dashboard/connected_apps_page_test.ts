// The dashboard's connected apps: the Overview's "Connected apps" table, the revoke confirmation's count of
// apps that follow now, the rotate confirmation's list of apps it cuts off, and mirrored lastUsedAt on the keys page.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { type Project, startTestCloud, type TestCloud } from "../../fixtures/test_cloud.ts";
import { type FormClient, signedIn, testAddress } from "./form_client.ts";
import { hashSecret, mintSecret, SDK_SECRET_PREFIX } from "../../../core/contract/mod.ts";

const A = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6A";
const B = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6B";
const C = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6C";
const D = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6D";
const E = "01JD5Z7Q8R9S0T1V2W3X4Y5Z6E";

describe("connected apps in the dashboard", () => {
  let clock = Date.parse("2026-03-01T12:00:00.000Z");
  let t: TestCloud;
  let admin: FormClient;
  before(async () => {
    t = await startTestCloud({ now: () => clock, dashboard: { clientAddress: testAddress, now: () => clock } });
    admin = await signedIn(t, "admin@example.com");
  });
  after(() => t.close());

  const poll = (p: Project, instance: string, label: string, mode = "hybrid") =>
    t.sdk("GET", "/v1/sdk/keys/revocations", {
      as: p,
      headers: {
        "x-svc-instance": instance,
        "x-svc-app-label": label,
        "x-svc-mode": mode,
        "x-svc-sdk-version": "1.4.0",
      },
    });

  test("the Overview lists the apps under 'Connected apps', escaped, with mode, SDK version, state and last seen", async () => {
    const p = await t.newProject("overview");
    await poll(p, A, `<img src=x onerror=alert(1)>`, "cloud");
    clock += 90_000;
    await poll(p, B, "shop web");
    const page = await admin.get(`/dashboard/projects/${p.id}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /<h2>Connected apps<\/h2>/);
    assert.doesNotMatch(page.text, /<img src=x/);
    assert.match(page.text, /&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(page.text, /<th scope="col">SDK version<\/th>/);
    const rows = page.text.split("<tr>").slice(2).map((row) => row.replace(/\s+/g, " "));
    assert.match(rows[0], /shop web<\/td> <td>hybrid<\/td> <td>1\.4\.0<\/td> <td>following<\/td>/);
    assert.match(rows[1], /<td>cloud<\/td> <td>1\.4\.0<\/td> <td>stale \(not seen for over a minute\)<\/td>/);
    const empty = await admin.get(`/dashboard/projects/${t.project.id}`);
    assert.match(empty.text, /No app has followed the revocation feed/);
  });

  /** The rows of the Overview's tables, the departed ones after "Show departed apps". */
  async function overview(p: Project): Promise<{ present: string[]; departed: string[]; text: string }> {
    const page = await admin.get(`/dashboard/projects/${p.id}`);
    assert.equal(page.status, 200);
    const [shown, hidden = ""] = page.text.split('<details class="departed">');
    const rows = (html: string) =>
      html.split("<tr>").slice(2).map((row) => row.replace(/\s+/g, " ").split("</table>")[0]);
    return {
      present: rows(shown.split("<h2>Violations")[0]),
      departed: rows(hidden.split("</details>")[0]),
      text: page.text,
    };
  }

  test("an app's restarts fold into one row (its latest instance); replicas seen together stay apart", async () => {
    const p = await t.newProject("restarts");
    await poll(p, A, "shop web");
    clock += 30_000;
    await poll(p, B, "shop web"); // A restarted as B
    clock += 30_000;
    await poll(p, C, "shop web"); // B restarted as C
    await poll(p, D, "worker");
    await poll(p, E, "worker"); // two replicas of the worker, polling at the same time
    clock += 10_000;
    await poll(p, D, "worker");
    await poll(p, E, "worker");
    const { present } = await overview(p);
    assert.equal(present.length, 3, present.join("\n"));
    const shop = present.filter((row) => row.includes("shop web"));
    assert.equal(shop.length, 1);
    assert.match(
      shop[0],
      /shop web <span class="muted">\(2 restarts\)<\/span> ?<\/td> <td>hybrid<\/td>.*<td>following<\/td>/,
    );
    const rotate = await admin.get(`/dashboard/projects/${p.id}/settings/rotate`);
    assert.match(rotate.text, /3 connected apps use the current secret/);
    const k = await t.mintKey("dave", {}, p);
    const revoke = await admin.get(`/dashboard/projects/${p.id}/keys/${k.id}/revoke`);
    assert.match(revoke.text, /3 connected apps will refuse this key/);
  });

  test("a rotation and a restart fold into one row, following with the new secret", async () => {
    const p = await t.newProject("rotation");
    await poll(p, A, "billing");
    clock += 20_000;
    const secret = mintSecret(SDK_SECRET_PREFIX);
    const at = new Date(clock).toISOString();
    assert.ok(await t.storage.projects.rotateProjectSecret(p.id, await hashSecret(secret), at));
    clock += 20_000;
    await poll({ ...p, secret }, B, "billing");
    const { present } = await overview(p);
    assert.equal(present.length, 1, present.join("\n"));
    assert.match(present[0], /billing <span class="muted">\(1 restart\)<\/span> ?<\/td>.*<td>following<\/td>/);
  });

  test("apps not seen for 10 minutes are listed only under 'Show departed apps'", async () => {
    const p = await t.newProject("departed");
    await poll(p, A, "old cron");
    clock += 5 * 60_000;
    await poll(p, B, "api");
    clock += 6 * 60_000; // old cron: 11 minutes, api: 6 minutes
    const { present, departed, text } = await overview(p);
    assert.match(text, /<summary>Show departed apps \(1\)<\/summary>/);
    assert.equal(present.length, 1);
    assert.match(present[0], /api<\/td>/);
    assert.equal(departed.length, 1);
    assert.match(departed[0], /old cron<\/td>.*\(11 min ago\)/);
    clock += 5 * 60_000;
    const later = await overview(p);
    assert.match(later.text, /No app has followed the revocation feed in the last 10 minutes\./);
    assert.match(later.text, /<summary>Show departed apps \(2\)<\/summary>/);
  });

  test("the Overview shows the outbox depth each app reported, or unknown", async () => {
    const p = await t.newProject("outbox");
    await t.sdk("GET", "/v1/sdk/keys/revocations", {
      as: p,
      headers: { "x-svc-instance": A, "x-svc-app-label": "busy", "x-svc-outbox-depth": "42" },
    });
    await poll(p, B, "quiet");
    const { present } = await overview(p);
    assert.match(present.find((row) => row.includes("busy"))!, /<td>42 items ?<\/td>/);
    assert.match(
      present.find((row) => row.includes("quiet"))!,
      /<td><span class="muted">unknown<\/span> ?<\/td> <\/tr>/,
    );
    assert.match((await admin.get(`/dashboard/projects/${p.id}`)).text, /<th scope="col">Outbox<\/th>/);
  });

  test("the revoke confirmation says how many apps follow now, or that none does", async () => {
    const p = await t.newProject("revoke");
    const k = await t.mintKey("alice", {}, p);
    const none = await admin.get(`/dashboard/projects/${p.id}/keys/${k.id}/revoke`);
    assert.match(none.text, /No app follows the revocation feed right now/);
    await poll(p, A, "one");
    await poll(p, B, "two");
    const two = await admin.get(`/dashboard/projects/${p.id}/keys/${k.id}/revoke`);
    assert.match(two.text, /2 connected apps will refuse this key within a second\./);
    clock += 61_000;
    await poll(p, B, "two");
    const one = await admin.get(`/dashboard/projects/${p.id}/keys/${k.id}/revoke`);
    assert.match(one.text, /1 connected app will refuse this key within a second\./, "a stale app is not counted");
  });

  test("the revoke-all and revoke-selected confirmations say 'these 2 keys', not 'this key'", async () => {
    const p = await t.newProject("revoke all");
    const [a, b] = [await t.mintKey("carol", {}, p), await t.mintKey("carol", {}, p)];
    const none = await admin.get(`/dashboard/projects/${p.id}/keys/revoke-all?user=carol`);
    assert.match(none.text, /an app that connects later refuses these 2 keys as it catches up\./);
    await poll(p, A, "one");
    const all = await admin.get(`/dashboard/projects/${p.id}/keys/revoke-all?user=carol`);
    assert.match(all.text, /1 connected app will refuse these 2 keys within a second\./);
    assert.doesNotMatch(all.text, /this key/);
    const selected = await admin.get(`/dashboard/projects/${p.id}/keys/revoke-selected?key=${a.id}&key=${b.id}`);
    assert.match(selected.text, /1 connected app will refuse these 2 keys within a second\./);
    const one = await admin.get(`/dashboard/projects/${p.id}/keys/revoke-selected?key=${a.id}`);
    assert.match(one.text, /1 connected app will refuse this key within a second\./);
  });

  test("the rotate confirmation lists the apps the rotation cuts off", async () => {
    const p = await t.newProject("rotate");
    const before = await admin.get(`/dashboard/projects/${p.id}/settings/rotate`);
    assert.match(before.text, /No connected app uses the current secret/);
    await poll(p, A, "billing worker", "cloud");
    const page = await admin.get(`/dashboard/projects/${p.id}/settings/rotate`);
    assert.match(page.text, /1 connected app uses the current secret/);
    assert.match(page.text, /<li>billing worker \(cloud, following, last seen/);
  });

  test("the keys page shows the lastUsedAt a hybrid app mirrored", async () => {
    const p = await t.newProject("last used");
    const k = await t.mintKey("bob", {}, p);
    const at = new Date(clock - 5000).toISOString();
    const res = await t.sdk("POST", "/v1/sdk/keys/used", { as: p, body: { keys: [{ id: k.id, lastUsedAt: at }] } });
    assert.equal(res.body.updated, 1);
    const page = await admin.get(`/dashboard/projects/${p.id}/keys`);
    assert.match(page.text, new RegExp(`<time datetime="${at}" title="${at}">`));
  });
});
