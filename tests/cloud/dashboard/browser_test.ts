// The dashboard in a real browser: Debian's Chromium driven by playwright-core,
// against `cloud/main.ts serve` as a real process (Deno by default; set
// SVC_DASHBOARD_RUNTIME=node or bun) on a real socket and a real libSQL file.
// axe-core checks every page; UPDATE_SCREENSHOTS=1 writes docs/dashboard-*.png.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { runtime } from "../../fixtures/runtime.ts";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { adminCreate, type CloudRuntime, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";
import { type Seeded, seedProject } from "./seed_project.ts";
import { createClient } from "@libsql/client";
import { withSvc } from "../../../mod.ts";
import { notesSvc } from "../../fixtures/notes_svc.ts";
import { listen, mintOverHttp, refusedWithin } from "../../fixtures/servers.ts";

const CHROMIUM = "/usr/bin/chromium";
const why = runtime !== "node"
  ? "one runtime drives the browser"
  : !existsSync(CHROMIUM)
  ? "Chromium is not installed (apt-get install -y chromium)"
  : false;
const root = fileURLToPath(new URL("../../../", import.meta.url));
const cloudRuntime = (process.env.SVC_DASHBOARD_RUNTIME ?? "deno") as CloudRuntime;
const ADMIN = { email: "admin@example.com", password: "a long admin password" };
const VIEWER = { email: "viewer@example.com", password: "a long viewer password" };

const title = `the dashboard in Chromium, served by the cloud on ${cloudRuntime}`;
// Bun's runner ignores `skip` on a describe: skip one test in its place.
if (why) test(title, { skip: why }, () => {});
else {describe(title, () => {
    const dir = tempDir();
    const db = `file:${dir.file("dashboard.db")}`;
    let cloud: ServedCloud;
    let browser: Browser;
    let admin: BrowserContext;
    let page: Page;
    let seeded: Seeded;
    const axeResults = new Map<string, string[]>();

    before(async () => {
      cloud = await serveCloud(cloudRuntime, db);
      const { chromium } = await import("playwright-core");
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
      });
      admin = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      page = await admin.newPage();
    });
    after(async () => {
      if (axeResults.size) {
        console.log("axe-core, serious or critical violations per page:");
        for (const [name, found] of axeResults) console.log(`  ${name}: ${found.length ? found.join(", ") : "none"}`);
      }
      await browser?.close();
      await cloud?.stop();
      dir.remove();
    });

    /** Runs axe-core on the page; records and returns the serious or critical violations. */
    async function axe(name: string, on: Page = page): Promise<void> {
      await on.evaluate(readFileSync(`${root}node_modules/axe-core/axe.min.js`, "utf8"));
      const found: string[] = await on.evaluate(async () => {
        // deno-lint-ignore no-explicit-any
        const { violations } = await (globalThis as any).axe.run((globalThis as any).document, {
          resultTypes: ["violations"],
        });
        return violations
          .filter((v: { impact: string }) => v.impact === "serious" || v.impact === "critical")
          .map((v: { id: string; nodes: unknown[] }) => `${v.id} (${v.nodes.length})`);
      });
      axeResults.set(name, found);
      assert.deepEqual(found, [], `axe-core on ${name}`);
    }

    async function signIn(on: Page, who: { email: string; password: string }, code = ""): Promise<void> {
      await on.goto(`${cloud.url}/dashboard/sign-in`);
      await on.getByLabel("Email").fill(who.email);
      await on.getByLabel("Password").fill(who.password);
      if (code) await on.getByLabel("Code").fill(code);
      await on.getByRole("button", { name: "Sign in" }).click();
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
      assert.match(await other.textContent("main") ?? "", /already used or has expired/);
      await axe("Setup link used", other);
      await other.close();
    });

    test("sign-out, then a wrong password is refused and the right one signs in", async () => {
      await page.getByRole("button", { name: "Sign out" }).click();
      assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
      await axe("Sign in");
      await signIn(page, { ...ADMIN, password: "not the password" });
      assert.match(await page.getByRole("alert").textContent() ?? "", /Wrong email, password or code/);
      await signIn(page, ADMIN);
      assert.equal(new URL(page.url()).pathname, "/dashboard/projects");
      await axe("Projects");
    });

    test("create project shows the sdkSecret once; a reload does not", async () => {
      await page.getByLabel("Name").fill("Acme Shop");
      await page.getByRole("button", { name: "Create project" }).click();
      const secret = await page.locator("#sdk-secret").textContent();
      assert.match(secret ?? "", /^svcs_[A-Za-z0-9]{40}$/);
      assert.match(await page.textContent("main") ?? "", /will not be shown again/);
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
      assert.match(await page.textContent("main") ?? "", /keys active/);
      assert.match(await page.locator("#chart-24h-desc").textContent() ?? "", /severe/);
      await axe("Overview");
      await screenshot(page, "overview");
      await page.getByRole("link", { name: "Keys", exact: true }).click();
      assert.match(await page.textContent("main") ?? "", /support-bot/);
      await axe("Keys");
      await screenshot(page, "keys");
      await page.getByRole("link", { name: "Intents" }).click();
      assert.match(await page.textContent("main") ?? "", /orders\.refund/);
      await axe("Intents");
      await page.getByRole("link", { name: "Violations" }).first().click();
      assert.match(await page.textContent("main") ?? "", new RegExp(`${seeded.violations} violations match`));
      await axe("Violations");
      await screenshot(page, "violations");
      await page.getByLabel("Severity", { exact: true }).selectOption("severe");
      await page.getByRole("button", { name: "Filter" }).click();
      assert.match(page.url(), /severity=severe/);
      await page.getByRole("link", { name: "Inbox" }).click();
      assert.match(await page.textContent("main") ?? "", new RegExp(seeded.agentId));
      await axe("Inbox");
      await page.getByRole("link", { name: seeded.agentId }).click();
      assert.match(await page.textContent("main") ?? "", /order\.paid/);
      await axe("Inbox of one agentId");
      await page.getByRole("link", { name: "Settings" }).click();
      await page.getByLabel("Violations that revoke a key").fill("3");
      await page.getByRole("button", { name: "Save auto-revoke" }).click();
      assert.match(await page.locator("#auto-revoke-state").textContent() ?? "", /^On: 3 counted violations/);
      await axe("Settings");
      await page.getByRole("button", { name: "Turn auto-revoke off" }).click();
      assert.match(await page.locator("#auto-revoke-state").textContent() ?? "", /^Off/);
      await page.getByRole("link", { name: "Audit log" }).click();
      assert.match(await page.textContent("main") ?? "", /project\.create/);
      await axe("Audit log");
      await page.getByRole("link", { name: "Projects" }).click();
      await page.getByRole("link", { name: "Audit log" }).click();
      assert.match(await page.textContent("main") ?? "", /operator\.sign_in_failed/);
      await axe("Audit log (all projects)");
      await page.getByRole("link", { name: ADMIN.email }).click();
      await axe("Account");
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
      assert.match(await off.textContent("main") ?? "", /The key is revoked/);
      assert.equal((await poll(seeded.keys.support)).status, 401);
      await context.close();
    });

    test("a key revoked in the dashboard is refused by a connected hybrid app within the 1 s bound", async () => {
      const svc = notesSvc({
        mode: "hybrid",
        storage: `file:${dir.file("app.db")}`,
        cloud: { endpoint: cloud.url, projectId: seeded.projectId, sdkSecret: seeded.secret },
      });
      const app = await listen(withSvc(svc));
      try {
        const minted = await mintOverHttp(app.url, "erin", ["notes:read"]);
        assert.equal(await svc.sync(), 0, "the key reached the cloud");
        for (let i = 0; i < 500 && !(await svc.health()).revocationFeed?.connected; i++) await sleep(10);
        assert.ok((await svc.health()).revocationFeed?.connected, "the app follows the revocation feed");
        await page.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/keys?user=erin`);
        await page.getByRole("button", { name: /^Revoke e2e/ }).click();
        await page.getByRole("button", { name: "Revoke key" }).click();
        assert.match(await page.textContent("main") ?? "", /The key is revoked/);
        const took = await refusedWithin(app.url, minted.key, 1_000);
        console.log(`a hybrid app refused the key ${took} ms after the dashboard's revoke answered`);
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
      const secret = await off.locator("#sdk-secret").textContent();
      assert.equal((await sdk(seeded.secret)).status, 401);
      assert.equal((await sdk(secret!)).status, 200);
      seeded.secret = secret!;
      await context.close();
    });

    test("a form post without the CSRF token is refused", async () => {
      await page.goto(`${cloud.url}/dashboard/projects`);
      await page.locator("form[action='/dashboard/projects'] input[name=csrf]").evaluate((input) => input.remove());
      await page.getByLabel("Name").fill("Forged");
      await page.getByRole("button", { name: "Create project" }).click();
      assert.match(await page.textContent("main") ?? "", /came from another site/);
      await page.goto(`${cloud.url}/dashboard/projects`);
      assert.equal(await page.getByRole("link", { name: "Forged" }).count(), 0);
    });

    test("a viewer reads but cannot mutate, even with a forged post carrying a valid token", async () => {
      const created = await adminCreate(cloudRuntime, db, VIEWER.email, "viewer", VIEWER.password);
      assert.equal(created.code, 0, created.stderr);
      const context = await browser.newContext();
      const viewer = await context.newPage();
      await signIn(viewer, VIEWER);
      assert.equal(await viewer.getByRole("button", { name: "Create project" }).count(), 0);
      await viewer.goto(`${cloud.url}/dashboard/projects/${seeded.projectId}/keys`);
      assert.equal(await viewer.getByRole("button", { name: /^Revoke/ }).count(), 0);
      const csrf = await viewer.locator("input[name=csrf]").first().getAttribute("value");
      const forged = await viewer.request.post(`${cloud.url}/dashboard/projects/${seeded.projectId}/settings/rotate`, {
        form: { csrf: csrf! },
        maxRedirects: 0,
      });
      assert.equal(forged.status(), 403);
      assert.equal((await sdk(seeded.secret)).status, 200, "the secret was not rotated");
      await context.close();
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
      assert.match(await guesser.getByRole("alert").textContent() ?? "", /Too many failed attempts/);
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
  });}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function screenshot(page: Page, name: string): Promise<void> {
  const shot = await page.screenshot({ fullPage: name === "overview" });
  assert.ok(shot.length > 10_000, `the ${name} screenshot has content`);
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${root}docs/dashboard-${name}.png`, shot);
  }
}
