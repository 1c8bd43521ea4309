// @slow: a browser
// The dashboard at 390, 768 and 1280 px in Chromium, against `cloud/main.ts serve` as a real process on a real
// libSQL file: no page scrolls sideways (wide tables scroll in their own box), the Revoke button is reachable,
// every page passes axe-core, and the operators page invites, changes a role and removes. UPDATE_SCREENSHOTS=1
// writes docs/dashboard-{audit,overview,activity,approvals,keys,operators,secret}-{390,1280}.png.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { axeFindings, inChromium, launchChromium, loadedText, mainText } from "../../fixtures/chromium.ts";
import { DASHBOARD_RUNTIME, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";
import { signIn } from "./browser_sign_in.ts";
import { type Seeded, seedProject } from "./seed_project.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const ADMIN = { email: "admin@example.com", password: "a long admin password" };
const WIDTHS = [390, 768, 1280] as const;

const title = `the dashboard at 390, 768 and 1280 px, served by the cloud on ${DASHBOARD_RUNTIME}`;
inChromium(title, () =>
  describe(title, () => {
    const dir = tempDir();
    let cloud: ServedCloud;
    let browser: Browser;
    let seeded: Seeded;
    // The first key minted below: its page and its user's revoke-all confirmation are checked at each width too.
    let firstKey: { id: string; userId: string } | undefined;
    let revokedKeyId: string;

    before(async () => {
      [cloud, browser] = await Promise.all([
        serveCloud(DASHBOARD_RUNTIME, `file:${dir.file("wide.db")}`),
        launchChromium(),
      ]);
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(cloud.setupLink);
      await page.getByLabel("Email").fill(ADMIN.email);
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Create admin" }).click();
      await page.getByLabel("Name").fill("Acme Shop with a rather long project name");
      await page.getByRole("button", { name: "Create project" }).click();
      const secret = await loadedText(page.locator("#sdk-secret"));
      assert.match(
        await loadedText(page.locator("#environment")),
        /^SVC_CLOUD_ENDPOINT=http:\/\/127\.0\.0\.1:\d+\nSVC_PROJECT_ID=prj_\w+\nSVC_SDK_SECRET=svcs_\w{40}\n$/,
      );
      await fits(page, "the secret-once page at 390 px");
      await screenshot(page, "secret", 390);
      const projectId = /projects\/(prj_[0-9A-Z]+)\//.exec(page.url())![1];
      seeded = await seedProject(cloud.url, projectId, secret);
      // One key to revoke at each width, with the longest names and scopes a row shows.
      for (const width of WIDTHS) {
        const res = await fetch(`${cloud.url}/v1/sdk/keys`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "x-svc-project": projectId,
            "content-type": "application/json",
          },
          body: JSON.stringify({
            userId: `user-with-a-long-name-${width}@example.com`,
            name: `nightly-reconciliation-agent-${width}`,
            scopes: ["orders:read", "orders:write"],
          }),
        });
        assert.equal(res.status, 201);
        firstKey ??= {
          id: ((await res.json()) as { id: string }).id,
          userId: `user-with-a-long-name-${width}@example.com`,
        };
      }
      await page.close();
    });
    after(async () => {
      await browser?.close();
      await cloud?.stop();
      dir.remove();
    });

    /** The page is no wider than the window: nothing to scroll sideways. */
    async function fits(page: Page, name: string): Promise<void> {
      await page.waitForLoadState("load"); // the whole page, not the part parsed when a click's navigation commits
      // Evaluated in the page, where the DOM is (this file is type-checked without it).
      const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
        "({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })",
      );
      assert.ok(scrollWidth <= innerWidth, `${name}: the page is ${scrollWidth} px wide in a ${innerWidth} px window`);
    }

    async function axe(page: Page, name: string): Promise<void> {
      assert.deepEqual((await axeFindings(page)).serious, [], `axe-core on ${name}`);
    }

    for (const width of WIDTHS) {
      test(`at ${width} px: the Revoke button is reachable and revokes, and the filtered audit log names the key`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 844 } });
        await signIn(page, cloud.url, ADMIN);
        const base = `${cloud.url}/dashboard/projects/${seeded.projectId}`;
        await page.goto(`${base}/keys?status=active`);
        await fits(page, `Keys at ${width} px`);
        const revoke = page.getByRole("button", { name: /^Revoke .+ \(svc_live_/ }).first();
        await revoke.scrollIntoViewIfNeeded();
        assert.ok(await revoke.isVisible(), "the Revoke button is visible");
        const box = (await revoke.boundingBox())!;
        assert.ok(
          box.x >= 0 && box.x + box.width <= width,
          `the Revoke button is inside the window: ${JSON.stringify(box)}`,
        );
        await fits(page, `Keys at ${width} px, scrolled to Revoke`);
        if (width === 390) await screenshot(page, "keys", width);
        const keyName = /^Revoke (.+) \(/.exec(await revoke.getAttribute("aria-label") ?? "")![1];
        await revoke.click();
        await fits(page, `Revoke key at ${width} px`);
        await axe(page, `Revoke key at ${width} px`);
        revokedKeyId = /keys\/([^/]+)\/revoke/.exec(page.url())![1];
        await page.getByRole("button", { name: "Revoke key" }).click();
        await page.goto(`${base}/audit?key=${revokedKeyId}`);
        assert.match(await mainText(page), /2 entries\s+about the key/);
        assert.match(await page.locator("tbody tr").first().textContent() ?? "", new RegExp(`${keyName} of user-with`));
        await page.getByLabel("Action").selectOption("key.revoke");
        await page.getByRole("button", { name: "Filter" }).click();
        assert.match(page.url(), /action=key\.revoke/);
        assert.match(page.url(), new RegExp(`key=${revokedKeyId}`), "the key filter stays with the action's");
        await fits(page, `Audit log of a key at ${width} px`);
        await page.close();
      });

      test(`at ${width} px: no page scrolls sideways and every page passes axe-core`, async () => {
        const page = await browser.newPage({ viewport: { width, height: 844 } });
        await signIn(page, cloud.url, ADMIN);
        const project = `/dashboard/projects/${seeded.projectId}`;
        const pages = [
          "/dashboard/projects",
          project,
          `${project}/keys`,
          `${project}/keys/${firstKey!.id}`,
          `${project}/keys/revoke-all?user=${encodeURIComponent(firstKey!.userId)}`,
          `${project}/intents`,
          `${project}/violations`,
          `${project}/approvals`,
          `${project}/activity`,
          `${project}/keys/${seeded.activeKeyId}`,
          `${project}/inbox`,
          `${project}/inbox/${encodeURIComponent(seeded.agentId)}`,
          `${project}/settings`,
          `${project}/settings/rotate`,
          `${project}/audit`,
          "/dashboard/audit",
          "/dashboard/account",
          "/dashboard/operators",
        ];
        for (const path of pages) {
          const res = await page.goto(`${cloud.url}${path}`);
          assert.equal(res?.status(), 200, path);
          await fits(page, `${path} at ${width} px`);
          await axe(page, `${path} at ${width} px`);
          if (path.startsWith(`${project}/inbox/`)) {
            // A long payload opens on demand: no row grows with its payload (a pretty-printed one was 270 px tall).
            const rows = await page.locator("main tbody tr").evaluateAll((trs) =>
              trs.map((tr) => tr.getBoundingClientRect().height)
            );
            assert.equal(rows.length, 3, path);
            for (const height of rows) assert.ok(height < 100, `${path} at ${width} px: a row ${height} px tall`);
            assert.equal(await page.locator("main details.payload").count(), 1, path);
          }
          const time = page.locator("main time").first();
          if (await time.count()) {
            const { height, lineHeight } = await time.evaluate((el) => ({
              height: el.getBoundingClientRect().height,
              // deno-lint-ignore no-explicit-any
              lineHeight: parseFloat((globalThis as any).getComputedStyle(el).lineHeight),
            }));
            assert.ok(height < lineHeight * 2.5, `${path} at ${width} px: a time on two lines at most (${height} px)`);
            assert.match(await time.getAttribute("title") ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
          }
          if (width !== 768) {
            const name = {
              [project]: "overview",
              [`${project}/audit`]: "audit",
              [`${project}/activity`]: "activity",
              [`${project}/approvals`]: "approvals",
              "/dashboard/operators": "operators",
            }[path];
            if (name) await screenshot(page, name, width);
            if (path === `${project}/keys` && width === 1280) await screenshot(page, "keys", width);
          }
        }
        await page.close();
      });
    }

    test("at 390 px: an admin invites an operator, who joins with the link; the role changes; the operator is removed", async () => {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await signIn(page, cloud.url, ADMIN);
      await page.getByRole("link", { name: "Operators" }).click();
      await page.getByLabel("Email of the new operator").fill("newcomer@example.com");
      await page.getByLabel("Role").selectOption("viewer");
      await page.getByLabel("Your password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Invite operator" }).click();
      const link = await loadedText(page.locator("#invite-link"));
      assert.match(await mainText(page), /will not be shown again/);
      await fits(page, "the invite link at 390 px");
      await axe(page, "Invite link");
      const newcomer = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await newcomer.goto(link);
      await axe(newcomer, "Join");
      await newcomer.getByLabel("Password").fill("the newcomer's password");
      await newcomer.getByRole("button", { name: "Join" }).click();
      assert.equal(new URL(newcomer.url()).pathname, "/dashboard/projects");
      assert.match(await newcomer.textContent("header") ?? "", /newcomer@example\.com\s*\(viewer\)/);
      assert.equal((await newcomer.goto(`${cloud.url}/dashboard/operators`))?.status(), 403, "viewers are refused");
      await page.goto(`${cloud.url}/dashboard/operators`);
      await page.getByRole("link", { name: "Change role of newcomer@example.com" }).click();
      await page.getByLabel("New role").selectOption("admin");
      await page.getByLabel("Your password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Change role" }).click();
      assert.match(await loadedText(page.getByRole("status")), /The role is changed/);
      await newcomer.goto(`${cloud.url}/dashboard/projects`);
      assert.equal(new URL(newcomer.url()).pathname, "/dashboard/sign-in", "the role change ended the session");
      await page.getByRole("link", { name: "Remove newcomer@example.com" }).click();
      await axe(page, "Remove operator");
      await page.getByLabel("Your password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Remove operator" }).click();
      assert.match(await loadedText(page.getByRole("status")), /removed and signed out/);
      assert.doesNotMatch(await mainText(page), /newcomer@example\.com/);
      await page.goto(`${cloud.url}/dashboard/audit?action=operator.invite`);
      assert.match(await mainText(page), /1 entries/);
      await page.close();
      await newcomer.close();
    });
  }));

/** A screenshot: checked to have content; written to docs/ with UPDATE_SCREENSHOTS=1. */
async function screenshot(page: Page, name: string, width: number): Promise<void> {
  const shot = await page.screenshot({ fullPage: true });
  assert.ok(shot.length > 10_000, `the ${name} screenshot has content`);
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${root}docs/dashboard-${name}-${width}.png`, shot);
  }
}
