// @slow: Chromium
// The decision page in Chromium, as a user meets it at decideUrl: signed in at the app (a cookie), the intent's
// title, the key's name and the payload (escaped: markup in it stays text), axe-core clean at 1280 and 390 px with no
// horizontal scrolling, then Approve: the handler runs once and the agent reads the result. Deny with a reason.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createSvc, type Svc, withSvc } from "../../../mod.ts";
import { serve } from "../../../adapters/node.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { axeFindings, inChromium, launchChromium } from "../../fixtures/chromium.ts";
import { wipeIntent } from "../../fixtures/notes_svc.ts";

inChromium("the approval decision page in Chromium", () =>
  describe("the approval decision page in Chromium", () => {
    let browser: Browser;
    let svc: Svc;
    let app: RunningServer;
    const ran: unknown[] = [];

    before(async () => {
      browser = await launchChromium();
      svc = createSvc({
        userResolver: (req) => /(?:^|; )demo_user=(\w+)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? null,
        scopes: ["notes:write"],
        intents: [wipeIntent(ran)],
        logger: () => {},
      });
      app = await serve(withSvc(svc, () => new Response("app", { status: 404 })), { port: 0, hostname: "127.0.0.1" });
    });

    after(async () => {
      await browser?.close();
      await app?.close();
      await svc?.close();
    });

    async function ask(folder: string): Promise<{ key: string; approvalId: string; decideUrl: string }> {
      const minted = await fetch(`${app.url}/svc/keys`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: "demo_user=alice" },
        body: JSON.stringify({ name: "Claude on the laptop", scopes: ["notes:write"] }),
      });
      const { key } = await minted.json();
      const res = await fetch(`${app.url}/svc/agent/run`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ intent: "notes.delete_all", payload: { folder } }),
      });
      assert.equal(res.status, 202);
      return { key, ...(await res.json()) };
    }

    async function signedIn(): Promise<Page> {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addCookies([{ name: "demo_user", value: "alice", url: app.url }]);
      return await context.newPage();
    }

    async function noHorizontalScroll(page: Page): Promise<void> {
      const [scroll, width] = await page.evaluate(() => {
        // deno-lint-ignore no-explicit-any
        const w = globalThis as any;
        return [w.document.documentElement.scrollWidth as number, w.innerWidth as number];
      });
      assert.ok(scroll <= width, `no horizontal scrolling (${scroll} > ${width})`);
    }

    test("the page shows what waits, escaped, is axe-clean at 1280 and 390 px, and Approve runs it once", async () => {
      const { key, approvalId, decideUrl } = await ask("<img src=x onerror=alert(1)>");
      const page = await signedIn();
      try {
        await page.goto(decideUrl);
        await page.getByRole("heading", { name: "Approve Delete all notes?" }).waitFor();
        assert.ok(await page.getByText("Claude on the laptop").isVisible(), "the key's name");
        assert.ok(await page.getByText("<img src=x onerror=alert(1)>", { exact: false }).isVisible(), "as text");
        assert.equal(await page.locator("img").count(), 0, "no markup from the payload");
        assert.deepEqual((await axeFindings(page)).serious, [], "axe-core at 1280 px");
        await page.setViewportSize({ width: 390, height: 844 });
        await noHorizontalScroll(page);
        assert.deepEqual((await axeFindings(page)).serious, [], "axe-core at 390 px");
        await page.getByRole("button", { name: "Approve" }).click();
        await page.getByRole("heading", { name: "Delete all notes: approved" }).waitFor();
        assert.equal(ran.length, 1);
        const outcome = await fetch(`${app.url}/svc/agent/approvals/${approvalId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        const body = await outcome.json();
        assert.equal(body.status, "approved");
        assert.deepEqual(body.result, { deleted: 3 });
      } finally {
        await page.context().close();
      }
    });

    test("Deny with a reason: nothing runs, the agent reads the reason", async () => {
      const before = ran.length;
      const { key, approvalId, decideUrl } = await ask("work");
      const page = await signedIn();
      try {
        await page.goto(decideUrl);
        await page.getByLabel("Why you deny it (optional, the agent sees it)").fill("not this week");
        await page.getByRole("button", { name: "Deny" }).click();
        await page.getByRole("heading", { name: "Delete all notes: denied" }).waitFor();
        assert.equal(ran.length, before);
        const outcome = await fetch(`${app.url}/svc/agent/approvals/${approvalId}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        assert.deepEqual(
          { ...(await outcome.json()), expiresAt: undefined },
          { approvalId, status: "denied", reason: "not this week", expiresAt: undefined },
        );
      } finally {
        await page.context().close();
      }
    });
  }));
