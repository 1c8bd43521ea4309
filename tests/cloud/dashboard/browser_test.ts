// @slow: a browser
// The dashboard in a real browser: Chromium driven by playwright-core, against
// `cloud/main.ts serve` as a real process (Deno by default; set
// SVC_DASHBOARD_RUNTIME=node or bun) on a real socket and a real libSQL file.
// axe-core checks every page and state; UPDATE_SCREENSHOTS=1 writes
// docs/dashboard-*.png. The other runtimes get a short run in browser_runtimes_test.ts.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { tempDir } from "../../fixtures/temp_dir.ts";
import {
  type AxeFindings,
  axeFindings,
  inChromium,
  launchChromium,
  loadedText,
  mainText,
} from "../../fixtures/chromium.ts";
import { adminCreate, DASHBOARD_RUNTIME, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";
import { type Operator, signIn as signInAt } from "./browser_sign_in.ts";
import { type Seeded, seedProject } from "./seed_project.ts";
import { createClient } from "@libsql/client";
import { withSvc } from "../../../mod.ts";
import { totpCode } from "../../../cloud/operators/second_factor.ts";
import { notesSvc } from "../../fixtures/notes_svc.ts";
import { listen, mintOverHttp, refusedSoon } from "../../fixtures/servers.ts";
import { waitFor } from "../../fixtures/wait_for.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const ADMIN = { email: "admin@example.com", password: "a long admin password" };
const VIEWER = { email: "viewer@example.com", password: "a long viewer password" };
/** `serve --sign-in-wait`: the first wait after repeated failed sign-ins. */
const SIGN_IN_WAIT_SECONDS = 600;

const title = `the dashboard in Chromium, served by the cloud on ${DASHBOARD_RUNTIME}`;
inChromium(title, () =>
  describe(title, () => {
    const dir = tempDir();
    const db = `file:${dir.file("dashboard.db")}`;
    let cloud: ServedCloud;
    let browser: Browser;
    let admin: BrowserContext;
    let page: Page;
    let seeded: Seeded;
    let viewer: Page;
    const axeResults = new Map<string, AxeFindings>();

    before(async () => {
      // The first wait after 5 failed sign-ins is 10 minutes, not 1 s: the slow-down test then sees it whatever
      // the machine's load, never racing the clock (and it runs last: 127.0.0.1 waits from then on).
      const flags = ["--sign-in-wait", String(SIGN_IN_WAIT_SECONDS)];
      [cloud, browser] = await Promise.all([serveCloud(DASHBOARD_RUNTIME, db, flags), launchChromium()]);
      admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await admin.newPage();
    });
    after(async () => {
      if (axeResults.size) {
        console.log(`axe-core on ${axeResults.size} pages and states: serious or critical violations [others]`);
        for (const [name, { serious, other }] of axeResults) {
          console.log(`  ${name}: ${serious.length ? serious.join(", ") : "none"}${other.length ? ` [${other}]` : ""}`);
        }
      }
      await browser?.close();
      await cloud?.stop();
      dir.remove();
    });

    /** Runs axe-core on the page; records what it finds and fails on a serious or critical violation. */
    async function axe(name: string, on: Page = page): Promise<void> {
      const found = await axeFindings(on);
      axeResults.set(name, found);
      assert.deepEqual(found.serious, [], `axe-core on ${name}`);
    }

    function signIn(on: Page, who: Operator, code = ""): Promise<void> {
      return signInAt(on, cloud.url, who, code);
    }

    test("the setup link creates the first admin, once", async () => {
      await page.goto(cloud.setupLink);
      await axe("Setup");
      await page.getByLabel("Email").fill(ADMIN.email);
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Create admin" }).click();
      assert.equal(new URL(page.url()).pathname, "/dashboard/projects");
      const other = await browser.newPage();
      const again = await other.goto(cloud.setupLink);
      assert.equal(again?.status(), 410);
      assert.match(await mainText(other), /already used or has expired/);
      await axe("Setup link used", other);
      await other.close();
    });

    test("sign-out, then a wrong password is refused and the right one signs in", async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
      await axe("Sign in");
      await signIn(page, { ...ADMIN, password: "not the password" });
      assert.match(await page.getByRole("alert").textContent() ?? "", /Wrong email, password or code/);
      await axe("Sign in, wrong password (401)");
      await signIn(page, ADMIN);
      assert.equal(new URL(page.url()).pathname, "/dashboard/projects");
      await axe("Projects");
    });

    test("create project shows the sdkSecret once; a reload does not", async () => {
      await page.getByLabel("Name").fill("Acme Shop");
      await page.getByRole("button", { name: "Create project" }).click();
      const secret = await loadedText(page.locator("#sdk-secret"));
      assert.match(secret ?? "", /^svcs_[A-Za-z0-9]{40}$/);
      assert.match(await mainText(page), /will not be shown again/);
      await axe("Project secret");
      const projectId = /projects\/(prj_[0-9A-Z]+)\//.exec(page.url())![1];
      await page.reload();
      assert.doesNotMatch(await page.content(), /svcs_/);
      seeded = await seedProject(cloud.url, projectId, secret!);
    });

    test("every page shows real data and passes axe-core; screenshots of overview, keys and violations", async () => {
      await page.goto(`${cloud.url}/dashboard/projects`);
      await page.getByRole("link", { name: "Acme Shop" }).click();
      await page.getByRole("link", { name: "Overview" }).click();
      assert.match(await mainText(page), /keys active/);
      assert.match(await page.locator("#chart-24h-desc").textContent() ?? "", /severe/);
      await page.getByRole("heading", { name: "Connected apps" }).waitFor();
      assert.match(await page.getByRole("table").first().textContent() ?? "", /acme-shop web/);
      await axe("Overview");
      await screenshot(page, "overview");
      await page.getByRole("link", { name: "Keys", exact: true }).click();
      assert.match(await mainText(page), /support-bot/);
      await axe("Keys");
      await screenshot(page, "keys");
      await page.getByRole("link", { name: "Intents" }).click();
      assert.match(await mainText(page), /orders\.refund/);
      await axe("Intents");
      await page.getByRole("link", { name: "Violations" }).first().click();
      assert.match(await mainText(page), new RegExp(`${seeded.violations} violations match`));
      await axe("Violations");
      await screenshot(page, "violations");
      await page.getByLabel("Severity", { exact: true }).selectOption("severe");
      await page.getByRole("button", { name: "Filter" }).click();
      assert.match(page.url(), /severity=severe/);
      await page.getByRole("link", { name: "Inbox" }).click();
      assert.match(await mainText(page), new RegExp(seeded.agentId));
      await axe("Inbox");
      await page.getByRole("link", { name: seeded.agentId }).click();
      assert.match(await mainText(page), /order\.paid/);
      await axe("Inbox of one agentId");
      await page.getByRole("button", { name: "Discard event evt_0" }).click();
      assert.match(await loadedText(page.getByRole("status")), /The item was discarded/);
      await page.getByLabel("Status").selectOption("acknowledged");
      await page.getByRole("button", { name: "Filter" }).click();
      assert.match(await mainText(page), /1 acknowledged items in/);
      assert.equal(await page.locator("tbody tr").count(), 1);
      assert.match(
        await page.locator("tbody tr td").nth(4).textContent() ?? "",
        /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/,
      );
      await axe("Inbox of one agentId, acknowledged items");
      await page.getByRole("link", { name: "Settings" }).click();
      await page.getByLabel("Violations that revoke a key").fill("3");
      await page.getByRole("button", { name: "Save auto-revoke" }).click();
      assert.match(await loadedText(page.locator("#auto-revoke-state")), /^On: 3 counted violations/);
      await axe("Settings");
      await page.getByRole("button", { name: "Turn auto-revoke off" }).click();
      assert.match(await loadedText(page.locator("#auto-revoke-state")), /^Off/);
      await page.getByRole("link", { name: "Audit log" }).click();
      assert.match(await mainText(page), /project\.create/);
      await axe("Audit log");
      await page.getByRole("link", { name: "Projects" }).click();
      await page.getByRole("link", { name: "Audit log" }).click();
      assert.match(await mainText(page), /operator\.sign_in_failed/);
      await axe("Audit log (all projects)");
      await page.getByRole("link", { name: ADMIN.email }).click();
      await axe("Account");
    });

    test("an unknown project is a 404 page and a malformed violations filter a 400 page, both accessible", async () => {
      const unknown = await page.goto(`${cloud.url}/dashboard/projects/prj_00000000000000000000000000/keys`);
      assert.equal(unknown?.status(), 404);
      assert.match(await page.getByRole("alert").textContent() ?? "", /There is no such project/);
      await axe("Not found (404), unknown project");
      await page.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/violations`);
      await page.getByLabel("Since").fill("yesterday");
      const [answer] = await Promise.all([
        page.waitForResponse((r) => r.url().includes("since=yesterday")),
        page.getByRole("button", { name: "Filter" }).click(),
      ]);
      assert.equal(answer.status(), 400);
      assert.match(await loadedText(page.getByRole("alert")), /Check the filters\. since:/);
      await axe("Violations, malformed filter (400)");
    });

    test("with JavaScript off: revoke, and the agent's next inbox poll gets 401", async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const off = await context.newPage();
      await signIn(off, ADMIN);
      assert.equal((await poll(seeded.keys.support)).status, 200);
      await off.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/keys?user=alice`);
      await off.getByRole("button", { name: /^Revoke support-bot/ }).click();
      await axe("Revoke confirmation", await sameUrl(off));
      await off.getByRole("button", { name: "Revoke key" }).click();
      assert.match(await mainText(off), /The key is revoked/);
      assert.equal((await poll(seeded.keys.support)).status, 401);
      await context.close();
    });

    test("a key revoked in the dashboard is refused by a connected hybrid app (the bench measures the 1 s bound)", async () => {
      const svc = notesSvc({
        mode: "hybrid",
        storage: `file:${dir.file("app.db")}`,
        cloud: { endpoint: cloud.url, projectId: seeded.projectId, sdkSecret: seeded.secret },
      });
      const app = await listen(withSvc(svc));
      try {
        const minted = await mintOverHttp(app.url, "erin", ["notes:read"]);
        assert.equal(await svc.sync(), 0, "the key reached the cloud");
        await waitFor("the app to follow the revocation feed", async () =>
          (await svc.health()).revocationFeed?.connected);
        await page.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/keys?user=erin`);
        await page.getByRole("button", { name: /^Revoke e2e/ }).click();
        await page.getByRole("button", { name: "Revoke key" }).click();
        assert.match(await mainText(page), /The key is revoked/);
        await refusedSoon(app.url, minted.key); // how soon is the bench's to measure, not a test's
      } finally {
        await app.close();
        await svc.close();
      }
    });

    test("with JavaScript off: rotate secret shows the new one once, and the old one is 401 at once", async () => {
      const context = await browser.newContext({ javaScriptEnabled: false });
      const off = await context.newPage();
      await signIn(off, ADMIN);
      await off.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/settings`);
      await off.getByRole("button", { name: "Rotate secret" }).click();
      await axe("Rotate confirmation", await sameUrl(off));
      await off.getByRole("button", { name: "Rotate secret" }).click();
      const secret = await loadedText(off.locator("#sdk-secret"));
      assert.equal((await sdk(seeded.secret)).status, 401);
      assert.equal((await sdk(secret!)).status, 200);
      seeded.secret = secret!;
      await context.close();
    });

    test("a form post without the CSRF token is refused", async () => {
      await page.goto(`${cloud.url}/dashboard/projects`);
      await page.locator("form[action='/dashboard/projects'] input[name=csrf]").evaluate((input) =>
        input.remove()
      );
      await page.getByLabel("Name").fill("Forged");
      await page.getByRole("button", { name: "Create project" }).click();
      assert.match(await mainText(page), /came from another site/);
      await page.goto(`${cloud.url}/dashboard/projects`);
      assert.equal(await page.getByRole("link", { name: "Forged" }).count(), 0);
    });

    test("a viewer reads every project page, each accessible, without a control that changes anything", async () => {
      const created = await adminCreate(DASHBOARD_RUNTIME, db, VIEWER.email, "viewer", VIEWER.password);
      assert.equal(created.code, 0, created.stderr);
      viewer = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      await signIn(viewer, VIEWER);
      assert.equal(await viewer.getByRole("button", { name: "Create project" }).count(), 0);
      await axe("Viewer: Projects", viewer);
      await viewer.getByRole("link", { name: "Acme Shop" }).click();
      await axe("Viewer: Overview", viewer);
      for (const [section, text] of [["Keys", /support-bot/], ["Intents", /Uploaded/], ["Violations", /match/]]) {
        await viewer.getByRole("navigation", { name: "Main" }).getByRole("link", {
          name: section as string,
          exact: true,
        }).click();
        assert.match(await mainText(viewer), text as RegExp);
        await axe(`Viewer: ${section}`, viewer);
      }
      assert.equal(await viewer.getByRole("button", { name: /^Revoke/ }).count(), 0);
      await viewer.getByRole("link", { name: "Inbox" }).click();
      await axe("Viewer: Inbox", viewer);
      await viewer.getByRole("link", { name: seeded.agentId }).click();
      assert.match(await mainText(viewer), /order\.paid/);
      assert.equal(await viewer.getByRole("button", { name: /^Discard/ }).count(), 0);
      await axe("Viewer: Inbox of one agentId", viewer);
      await viewer.getByRole("link", { name: "Settings" }).click();
      assert.ok(await viewer.getByRole("button", { name: "Rotate secret" }).isDisabled());
      await axe("Viewer: Settings", viewer);
      await viewer.getByRole("link", { name: "Audit log" }).click();
      await axe("Viewer: Audit log", viewer);
    });

    test("a viewer who opens an admin's form and posts it, or forges a post with a valid token, gets a 403", async () => {
      await viewer.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/settings/rotate`);
      await axe("Viewer: Rotate confirmation (an admin's form)", viewer);
      const [refused] = await Promise.all([
        viewer.waitForResponse((r) => r.request().method() === "POST"),
        viewer.getByRole("button", { name: "Rotate secret" }).click(),
      ]);
      assert.equal(refused.status(), 403);
      assert.match(await loadedText(viewer.getByRole("alert")), /Viewers can read but not change anything/);
      await axe("Refused (403), a viewer's post", viewer);
      const csrf = await viewer.request.get(`${cloud.url}/dashboard/projects/${seeded.projectId}/keys`)
        .then(async (r) => /name="csrf" value="([^"]+)"/.exec(await r.text())![1]);
      const forged = await viewer.request.post(`${cloud.url}/dashboard/projects/${seeded.projectId}/settings/rotate`, {
        form: { csrf },
        maxRedirects: 0,
      });
      assert.equal(forged.status(), 403);
      assert.equal((await sdk(seeded.secret)).status, 200, "the secret was not rotated");
    });

    test("a viewer turns on two-factor sign-in: the enrolment page and the recovery codes are accessible", async () => {
      await viewer.goto(`${cloud.url}/dashboard/account`);
      await axe("Viewer: Account", viewer);
      await viewer.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
      const secret = await loadedText(viewer.locator("#totp-secret"));
      assert.match(secret ?? "", /^[A-Z2-7]{32}$/);
      await axe("Two-factor enrolment", viewer);
      await viewer.getByLabel("Code").fill(totpCode(secret!, Date.now()));
      await viewer.getByRole("button", { name: "Confirm" }).click();
      await viewer.locator("#recovery-codes li").nth(9).waitFor(); // the page is parsed as far as the tenth code
      assert.equal(await viewer.locator("#recovery-codes li").count(), 10);
      await axe("Two-factor recovery codes", viewer);
      await viewer.context().close();
    });

    test("a session ends after its idle time and after its absolute lifetime: the next page asks to sign in", async () => {
      const context = await browser.newContext();
      const visitor = await context.newPage();
      const storage = createClient({ url: db });
      try {
        for (const expire of ["last_seen_at = '2000-01-01T00:00:00.000Z'", "expires_at = '2000-01-01T00:00:00.000Z'"]) {
          await signIn(visitor, ADMIN);
          await visitor.goto(`${cloud.url}/dashboard/projects`);
          assert.equal(new URL(visitor.url()).pathname, "/dashboard/projects");
          // The newest session is this sign-in's: age it as the clock would.
          await storage.execute(
            `UPDATE cloud_sessions SET ${expire}
             WHERE token_hash = (SELECT token_hash FROM cloud_sessions ORDER BY created_at DESC LIMIT 1)`,
          );
          await visitor.reload();
          assert.equal(new URL(visitor.url()).pathname, "/dashboard/sign-in", expire);
        }
      } finally {
        storage.close();
        await context.close();
      }
    });

    test("repeated failed sign-ins slow down", async () => {
      const context = await browser.newContext();
      const guesser = await context.newPage();
      for (let i = 0; i < 5; i++) await signIn(guesser, { ...VIEWER, password: `guess number ${i}` });
      await signIn(guesser, VIEWER);
      // The wait counts from the last failure: at least the first wait, at most twice it (the address's failures).
      const alert = await guesser.getByRole("alert").textContent() ?? "";
      const seconds = Number(/Too many failed attempts\. Try again in (\d+) seconds\./.exec(alert)?.[1]);
      assert.ok(seconds > SIGN_IN_WAIT_SECONDS - 60 && seconds <= 4 * SIGN_IN_WAIT_SECONDS, alert);
      await axe("Sign in, slowed down (429)", guesser);
      await context.close();
    });

    async function sameUrl(off: Page): Promise<Page> {
      // axe needs JavaScript: the same page, same session, in the admin's JavaScript-on context.
      await page.goto(off.url());
      return page;
    }

    function poll(key: string): Promise<Response> {
      return fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } });
    }

    function sdk(secret: string): Promise<Response> {
      return fetch(`${cloud.url}/v1/sdk/intents`, {
        headers: { authorization: `Bearer ${secret}`, "x-svc-project": seeded.projectId },
      });
    }
  }));

async function screenshot(page: Page, name: string): Promise<void> {
  const shot = await page.screenshot({ fullPage: name === "overview" });
  assert.ok(shot.length > 10_000, `the ${name} screenshot has content`);
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${root}docs/dashboard-${name}.png`, shot);
  }
}
