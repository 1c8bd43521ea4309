// @slow: a browser
// The Inbox page's dead letters in Chromium, against `cloud/main.ts serve` as a real process (Deno by default;
// SVC_DASHBOARD_RUNTIME=node or bun) on a real libSQL file: an item released at the project's maxDeliveries is
// listed with its reason; "Redrive" puts it back (the agent's next poll gets it), "Redrive all" the rest, and
// "Replay" queues acknowledged items again; axe-core on each state.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { tempDir } from "../../fixtures/temp_dir.ts";
import { axeFindings, inChromium, launchChromium, loadedText, mainText } from "../../fixtures/chromium.ts";
import { DASHBOARD_RUNTIME, serveCloud, type ServedCloud } from "./cloud_subprocess.ts";

const ADMIN = { email: "admin@example.com", password: "a long admin password" };

const title = `the Inbox page's dead letters in Chromium, served by the cloud on ${DASHBOARD_RUNTIME}`;
inChromium(title, () =>
  describe(title, () => {
    const dir = tempDir();
    let cloud: ServedCloud;
    let browser: Browser;
    let page: Page;
    let project: { id: string; secret: string };
    let key = "";

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

    const sdk = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${cloud.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${project.secret}`,
          "x-svc-project": project.id,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await res.json();
    };
    const agent = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${cloud.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return await res.json();
    };
    const axe = async (name: string) => assert.deepEqual((await axeFindings(page)).serious, [], `axe-core on ${name}`);

    test("an admin creates a project; two items of its agent become dead letters", async () => {
      await page.goto(cloud.setupLink);
      await page.getByLabel("Email").fill(ADMIN.email);
      await page.getByLabel("Password").fill(ADMIN.password);
      await page.getByRole("button", { name: "Create admin" }).click();
      await page.getByLabel("Name").fill("Queue");
      await page.getByRole("button", { name: "Create project" }).click();
      const secret = await loadedText(page.locator("#sdk-secret"));
      project = { id: /projects\/(prj_[0-9A-Z]+)\//.exec(page.url())![1], secret };
      key = (await sdk("POST", "/v1/sdk/keys", { userId: "worker", name: "worker", scopes: [] })).key;
      await sdk("PUT", "/v1/sdk/policy", { inbox: { maxDeliveries: 1 } });
      const events = ["e-1", "e-2"].map((eventId) => ({
        eventId,
        type: "job",
        agentId: "worker",
        payload: { eventId },
      }));
      await sdk("POST", "/v1/events/batch", { events });
      const leased = await agent("GET", "/v1/agent/inbox?lease=60");
      assert.equal(leased.items.length, 2);
      const released = await agent("POST", "/v1/agent/leases/release", {
        leaseIds: leased.items.map((i: { leaseId: string }) => i.leaseId),
        reason: "handler crashed",
      });
      assert.equal(released.released, 2);
      assert.deepEqual((await agent("GET", "/v1/agent/inbox?lease=60")).items, []);
    });

    test("Dead letters lists them; Redrive puts one back, Redrive all the other", async () => {
      await page.goto(`${cloud.url}/dashboard/projects/${project.id}/inbox/worker`);
      const dead = await page.getByRole("table", { name: "Dead letters, oldest first" }).textContent() ?? "";
      assert.match(dead, /e-1[\s\S]*handler crashed/);
      assert.match(dead, /e-2/);
      await axe("Inbox with dead letters");
      await page.getByRole("button", { name: "Redrive event e-1" }).click();
      assert.match(await loadedText(page.getByRole("status")), /1 dead letters were put back/);
      const back = await agent("GET", "/v1/agent/inbox?lease=60");
      assert.deepEqual(back.items.map((i: { eventId: string; deliveries: number }) => [i.eventId, i.deliveries]), [
        ["e-1", 1],
      ]);
      await agent("POST", "/v1/agent/ack", { leaseIds: [back.items[0].leaseId] });
      await page.getByRole("button", { name: "Redrive all 1 dead letters" }).click();
      assert.match(await loadedText(page.getByRole("status")), /1 dead letters were put back/);
      assert.match(await mainText(page), /No dead letters\./);
      await axe("Inbox after a redrive");
    });

    test("Replay… queues the acknowledged item again, with replayOf", async () => {
      await page.getByLabel("Since").fill("2020-01-01T00:00:00Z");
      await page.getByRole("button", { name: "Replay", exact: true }).click();
      assert.match(await loadedText(page.getByRole("status")), /1 acknowledged items were queued again/);
      const items = (await agent("GET", "/v1/agent/inbox")).items;
      assert.deepEqual(
        items.map((i: { eventId: string; replayOf?: number }) => [i.eventId, i.replayOf !== undefined]),
        [
          ["e-2", false],
          ["e-1", true],
        ],
      );
    });
  }));
