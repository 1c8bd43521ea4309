// @slow: a browser
// The dashboard in Chromium against the cloud on each runtime the full run
// (browser_test.ts, on SVC_DASHBOARD_RUNTIME, default deno) does not use: a
// short run from the setup link to a revoke the agent feels over HTTP.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { inChromium, launchChromium, loadedText, mainText } from "../../fixtures/chromium.ts";
import { type CloudRuntime, DASHBOARD_RUNTIME, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";
import { signIn } from "./browser_sign_in.ts";

const ADMIN = { email: "admin@example.com", password: "a long admin password" };
const RUNTIMES: CloudRuntime[] = ["node", "bun", "deno"];

for (const runtime of RUNTIMES.filter((r) => r !== DASHBOARD_RUNTIME)) {
  const title = `a short run of the dashboard in Chromium, served by the cloud on ${runtime}`;
  inChromium(title, () =>
    describe(title, () => {
      const dir = tempDir();
      let cloud: ServedCloud;
      let browser: Browser;
      let page: Page;
      let project: { id: string; secret: string };
      let agentKey: string;

      before(async () => {
        [cloud, browser] = await Promise.all([serveCloud(runtime, `file:${dir.file("svc.db")}`), launchChromium()]);
        page = await browser.newPage();
      });
      after(async () => {
        await browser?.close();
        await cloud?.stop();
        dir.remove();
      });

      const poll = (key: string) =>
        fetch(`${cloud.url}/v1/agent/inbox`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);

      test("the setup link creates the first admin, who signs out and in again", async () => {
        await page.goto(cloud.setupLink);
        await page.getByLabel("Email").fill(ADMIN.email);
        await page.getByLabel("Password").fill(ADMIN.password);
        await page.getByRole("button", { name: "Create admin" }).click();
        assert.equal(new URL(page.url()).pathname, "/dashboard/projects");
        await page.getByRole("button", { name: "Sign out" }).click();
        assert.equal(new URL(page.url()).pathname, "/dashboard/sign-in");
        await signIn(page, cloud.url, ADMIN);
        assert.equal(new URL(page.url()).pathname, "/dashboard/projects");
      });

      test("a new project's secret is shown once, and a key minted with it is on the keys page", async () => {
        await page.getByLabel("Name").fill(`Shop on ${runtime}`);
        await page.getByRole("button", { name: "Create project" }).click();
        const secret = await loadedText(page.locator("#sdk-secret"));
        assert.match(secret, /^svcs_[A-Za-z0-9]{40}$/);
        project = { id: /projects\/(prj_[0-9A-Z]+)\//.exec(page.url())![1], secret };
        await page.reload();
        assert.doesNotMatch(await page.content(), /svcs_/);
        const minted = await fetch(`${cloud.url}/v1/sdk/keys`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${secret}`,
            "x-svc-project": project.id,
            "content-type": "application/json",
          },
          body: JSON.stringify({ userId: "alice", name: "smoke-bot", scopes: [] }),
        });
        assert.equal(minted.status, 201);
        agentKey = (await minted.json()).key;
        assert.equal(await poll(agentKey), 200);
        await page.goto(`${cloud.url}/dashboard/projects/${project.id}`);
        await page.getByRole("link", { name: "Keys", exact: true }).click();
        assert.match(await mainText(page), /smoke-bot/);
      });

      test("revoking the key in the dashboard makes the agent's next inbox poll 401 over HTTP", async () => {
        await page.getByRole("button", { name: /^Revoke smoke-bot/ }).click();
        await page.getByRole("button", { name: "Revoke key" }).click();
        assert.match(await loadedText(page.getByRole("status")), /The key is revoked/);
        assert.equal(await poll(agentKey), 401);
      });

      test("Revoke selected, then Revoke all keys of USER with its count, each felt by the agents over HTTP", async () => {
        const mint = async (name: string) => {
          const res = await fetch(`${cloud.url}/v1/sdk/keys`, {
            method: "POST",
            headers: {
              authorization: `Bearer ${project.secret}`,
              "x-svc-project": project.id,
              "content-type": "application/json",
            },
            body: JSON.stringify({ userId: "bob", name, scopes: [] }),
          });
          return (await res.json()).key as string;
        };
        const [one, two, three] = [await mint("bulk-1"), await mint("bulk-2"), await mint("bulk-3")];
        await page.goto(`${cloud.url}/dashboard/projects/${project.id}/keys?q=bulk-`);
        await page.getByLabel("Select bulk-1").check();
        await page.getByRole("button", { name: "Revoke selected" }).click();
        await page.getByRole("button", { name: "Revoke 1 key" }).click();
        assert.match(await loadedText(page.getByRole("status")), /The key is revoked/);
        assert.deepEqual([await poll(one), await poll(two)], [401, 200]);
        await page.goto(`${cloud.url}/dashboard/projects/${project.id}/keys?user=bob`);
        await page.getByRole("button", { name: "Revoke all keys of bob" }).click();
        assert.match(
          await loadedText(page.locator("#revoke-all-count")),
          /Revoke all 2 active keys of user bob/,
        );
        await page.getByRole("button", { name: "Revoke all 2 keys" }).click();
        assert.match(await loadedText(page.getByRole("status")), /2 keys are revoked/);
        assert.deepEqual([await poll(two), await poll(three)], [401, 401]);
      });
    }));
}
