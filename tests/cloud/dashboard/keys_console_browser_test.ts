// @slow: a browser
// The operator's key console in Chromium, against `cloud/main.ts serve` as a real process (Deno by default;
// SVC_DASHBOARD_RUNTIME=node or bun) on a real libSQL file: "Search keys", a key's page, "Select NAME" with
// "Revoke selected", and "Revoke all keys of USER" with its count; axe-core on every page and state, each
// revoke felt by the agents over HTTP. UPDATE_SCREENSHOTS=1 writes docs/dashboard-keys-*-{390,1280}.png.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { axeFindings, inChromium, launchChromium, loadedText, mainText } from "../../fixtures/chromium.ts";
import { DASHBOARD_RUNTIME, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const ADMIN = { email: "admin@example.com", password: "a long admin password" };

const title = `the key console in Chromium, served by the cloud on ${DASHBOARD_RUNTIME}`;
inChromium(title, () =>
  describe(title, () => {
    const dir = tempDir();
    let cloud: ServedCloud;
    let browser: Browser;
    let page: Page;
    let project: { id: string; secret: string };
    const keys = new Map<string, { id: string; key: string }>();

    before(async () => {
      [cloud, browser] = await Promise.all([
        serveCloud(DASHBOARD_RUNTIME, `file:${dir.file("svc.db")}`),
        launchChromium(),
      ]);
      page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    });
    after(async () => {
      await browser?.close();
      await cloud?.stop();
      dir.remove();
    });

    async function axe(name: string): Promise<void> {
      assert.deepEqual((await axeFindings(page)).serious, [], `axe-core on ${name}`);
    }

    /** The page at 390 and 1280 px wide, kept in docs/ when UPDATE_SCREENSHOTS=1. */
    async function screenshots(name: string): Promise<void> {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 });
        const shot = await page.screenshot({ fullPage: true });
        assert.ok(shot.length > 10_000, `the ${name} screenshot at ${width} px has content`);
        if (process.env.UPDATE_SCREENSHOTS === "1") {
          const { writeFileSync } = await import("node:fs");
          writeFileSync(`${root}docs/dashboard-keys-${name}-${width}.png`, shot);
        }
      }
    }

    const poll = async (name: string) =>
      (await fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${keys.get(name)!.key}` } }))
        .status;

    test("an admin signs up through the setup link, creates a project, and its app mints keys", async () => {
      await page.goto(cloud.setupLink);
      await page.getByLabel("Email").fill(ADMIN.email);
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Create admin" }).click();
      await page.getByLabel("Name").fill("Key console");
      await page.getByRole("button", { name: "Create project" }).click();
      const secret = await loadedText(page.locator("#sdk-secret"));
      project = { id: /projects\/(prj_[0-9A-Z]+)\//.exec(page.url())![1], secret };
      const mint = async (userId: string, name: string) => {
        const res = await fetch(`${cloud.url}/v1/sdk/keys`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "x-svc-project": project.id,
            "content-type": "application/json",
          },
          body: JSON.stringify({ userId, name, scopes: [] }),
        });
        assert.equal(res.status, 201);
        const body = await res.json();
        keys.set(name, { id: body.id, key: body.key });
      };
      for (const name of ["billing-agent", "billing-backup", "support-bot"]) await mint("alice", name);
      for (const name of ["leaked-1", "leaked-2", "leaked-3"]) await mint("bob", name);
      for (const name of [...keys.keys()]) assert.equal(await poll(name), 200);
    });

    test("Search keys finds a name prefix, and each name links to the key's page", async () => {
      await page.goto(`${cloud.url}/dashboard/projects/${project.id}/keys`);
      await page.getByLabel("Search keys").fill("billing");
      await page.getByRole("button", { name: "Filter" }).click();
      assert.match(await loadedText(page.locator("#key-count")), /2 keys/);
      assert.doesNotMatch(await mainText(page), /support-bot|leaked/);
      await axe("Keys, searched");
      await page.getByRole("link", { name: "billing-agent" }).click();
      assert.equal(
        new URL(page.url()).pathname,
        `/dashboard/projects/${project.id}/keys/${keys.get("billing-agent")!.id}`,
      );
      const main = await mainText(page);
      for (const text of ["billing-agent", "alice", "svc_live_", "Last used", "Expires", "active", "Audit entries"]) {
        assert.ok(main.includes(text), text);
      }
      await page.getByRole("button", { name: /^Revoke billing-agent/ }).waitFor();
      await axe("Key page");
      await screenshots("key-page");
    });

    test("Select NAME and Revoke selected: one confirmation lists the keys, then both are refused", async () => {
      await page.goto(`${cloud.url}/dashboard/projects/${project.id}/keys?q=leaked&status=active`);
      await page.getByLabel("Select leaked-1").check();
      await page.getByLabel("Select leaked-3").check();
      await screenshots("selection");
      await page.getByRole("button", { name: "Revoke selected" }).click();
      const listed = await loadedText(page.getByRole("table", { name: "Keys to revoke" }));
      assert.match(listed, /leaked-1/);
      assert.match(listed, /leaked-3/);
      assert.doesNotMatch(listed, /leaked-2/);
      await axe("Revoke selected confirmation");
      await page.getByRole("button", { name: "Revoke 2 keys" }).click();
      assert.match(await loadedText(page.getByRole("status")), /2 keys are revoked/);
      assert.equal(await page.getByLabel("Search keys").inputValue(), "leaked", "the search survives the redirect");
      assert.equal(await page.getByLabel("Status").inputValue(), "active");
      assert.deepEqual([await poll("leaked-1"), await poll("leaked-2"), await poll("leaked-3")], [401, 200, 401]);
    });

    test("Revoke all keys of USER from a key's page states the count, then every key of the user is refused", async () => {
      await page.goto(`${cloud.url}/dashboard/projects/${project.id}/keys/${keys.get("support-bot")!.id}`);
      await page.getByRole("button", { name: "Revoke all keys of alice" }).click();
      assert.match(
        await loadedText(page.locator("#revoke-all-count")),
        /Revoke all 3 active keys of user alice\?/,
      );
      await axe("Revoke all confirmation");
      await screenshots("revoke-all");
      await page.getByRole("button", { name: "Revoke all 3 keys" }).click();
      assert.match(await loadedText(page.getByRole("status")), /3 keys are revoked/);
      for (const name of ["billing-agent", "billing-backup", "support-bot"]) assert.equal(await poll(name), 401);
      assert.equal(await poll("leaked-2"), 200, "another user's key keeps working");
      await page.getByRole("link", { name: "support-bot" }).click();
      assert.match(await mainText(page), /key\.revoke/);
    });
  }));
