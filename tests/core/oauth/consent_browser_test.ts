// @slow: Chromium
// The consent page in Chromium, as a user meets it: an MCP client's authorization URL, the app's own sign-in
// (a cookie) and back, the page at 390 and 1280 px (axe-core, no horizontal scrolling), one scope unticked, Allow;
// the browser lands on the client's redirect URI with a code (the CSP's form-action lets the redirect through),
// and the code buys a key with the ticked scopes only. Deny lands there with access_denied.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { createSvc, isOAuthReturnUrl, type Svc, withSvc } from "../../../mod.ts";
import { serve } from "../../../adapters/node.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { axeFindings, inChromium, launchChromium } from "../../fixtures/chromium.ts";
import { intents } from "../../fixtures/notes_svc.ts";
import { pkce } from "../../fixtures/oauth_app.ts";

const root = fileURLToPath(new URL("../../../", import.meta.url));

inChromium("the consent page in Chromium", () =>
  describe("the consent page in Chromium", () => {
    let browser: Browser;
    let svc: Svc;
    let app: RunningServer;
    let client: RunningServer;
    const arrived: URL[] = [];

    before(async () => {
      browser = await launchChromium();
      svc = createSvc({
        userResolver: (req) => /(?:^|; )demo_user=(\w+)/.exec(req.headers.get("cookie") ?? "")?.[1] ?? null,
        scopes: ["notes:read", "notes:write", "admin"],
        intents,
        logger: () => {},
        oauth: { signInUrl: "/login" },
      });
      // The app's own sign-in: a demo that signs in "alice" and goes back only to the app's authorization URL.
      app = await serve(
        withSvc(svc, (req) => {
          const url = new URL(req.url);
          if (url.pathname !== "/login") return new Response("app", { status: 404 });
          const back = url.searchParams.get("return_to") ?? "";
          const location = isOAuthReturnUrl(back, url.origin) ? back : "/";
          return new Response(null, {
            status: 302,
            headers: { location, "set-cookie": "demo_user=alice; Path=/; HttpOnly; SameSite=Lax" },
          });
        }),
        { port: 0, hostname: "127.0.0.1" },
      );
      client = await serve((req) => {
        arrived.push(new URL(req.url));
        return new Response("back at the client");
      }, { port: 0, hostname: "127.0.0.1" });
    });

    after(async () => {
      await browser?.close();
      await client?.close();
      await app?.close();
      await svc?.close();
    });

    async function authorizationUrl(): Promise<{ url: string; clientId: string; verifier: string }> {
      const res = await fetch(`${app.url}/svc/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Claude", redirect_uris: [`${client.url}/callback`] }),
      });
      const { client_id: clientId } = await res.json();
      const { verifier, challenge } = await pkce();
      const params = new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: `${client.url}/callback`,
        code_challenge: challenge,
        code_challenge_method: "S256",
        scope: "notes:read notes:write",
        state: "xyz",
        resource: `${app.url}/svc/mcp`,
      });
      return { url: `${app.url}/svc/oauth/authorize?${params}`, clientId, verifier };
    }

    async function noHorizontalScroll(page: Page): Promise<void> {
      // Evaluated in the page: `globalThis` is its window (Deno's types know no DOM).
      const [scroll, width] = await page.evaluate(() => {
        // deno-lint-ignore no-explicit-any
        const w = globalThis as any;
        return [w.document.documentElement.scrollWidth as number, w.innerWidth as number];
      });
      assert.ok(scroll <= width, `no horizontal scrolling (${scroll} > ${width})`);
    }

    test("a signed-out user signs in, sees the consent, unticks a scope and allows: the client gets a code", async () => {
      const { url, clientId, verifier } = await authorizationUrl();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      try {
        await page.goto(url);
        assert.equal(new URL(page.url()).pathname, "/svc/oauth/authorize", "back from the sign-in");
        await page.getByRole("heading", { name: "Allow Claude to act for you?" }).waitFor();
        assert.ok(await page.getByText(new URL(client.url).host).first().isVisible(), "the redirect host is named");
        const read = page.getByRole("checkbox", { name: "notes:read" });
        const write = page.getByRole("checkbox", { name: "notes:write" });
        assert.ok(await read.isChecked());
        assert.ok(await write.isChecked());
        const findings = await axeFindings(page);
        assert.deepEqual(findings.serious, [], "axe-core: no serious or critical violation");
        await screenshot(page, "1280");
        await page.setViewportSize({ width: 390, height: 844 });
        await noHorizontalScroll(page);
        const allow = await page.getByRole("button", { name: "Allow" }).boundingBox();
        const deny = await page.getByRole("button", { name: "Deny" }).boundingBox();
        assert.ok(allow && deny && Math.abs(allow.width - deny.width) < 2 && allow.height === deny.height, "equal");
        await screenshot(page, "390");
        await write.uncheck();
        await Promise.all([
          page.waitForURL(`${client.url}/callback?**`),
          page.getByRole("button", { name: "Allow" }).click(),
        ]);
        const back = new URL(page.url());
        assert.equal(back.searchParams.get("state"), "xyz");
        assert.equal(back.searchParams.get("iss"), `${app.url}/svc`);
        const token = await fetch(`${app.url}/svc/oauth/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            grant_type: "authorization_code",
            code: back.searchParams.get("code")!,
            redirect_uri: `${client.url}/callback`,
            code_verifier: verifier,
            client_id: clientId,
          }),
        });
        const tokens = await token.json();
        assert.equal(tokens.scope, "notes:read", "only what stayed ticked");
        const intentsRes = await fetch(`${app.url}/svc/agent/intents`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        });
        assert.equal(intentsRes.status, 200);
      } finally {
        await context.close();
      }
    });

    test("Deny sends the browser back to the client with access_denied", async () => {
      const { url } = await authorizationUrl();
      const context = await browser.newContext();
      await context.addCookies([{ name: "demo_user", value: "alice", url: app.url }]);
      const page = await context.newPage();
      try {
        await page.goto(url);
        await Promise.all([
          page.waitForURL(`${client.url}/callback?**`),
          page.getByRole("button", { name: "Deny" }).click(),
        ]);
        const back = new URL(page.url());
        assert.equal(back.searchParams.get("error"), "access_denied");
        assert.equal(back.searchParams.get("code"), null);
      } finally {
        await context.close();
      }
    });

    test("another site cannot frame the consent page", async () => {
      const { url } = await authorizationUrl();
      const context = await browser.newContext();
      await context.addCookies([{ name: "demo_user", value: "alice", url: app.url }]);
      const page = await context.newPage();
      try {
        await page.goto(`${client.url}/host`);
        const answered = page.waitForResponse((r) => r.url().startsWith(`${app.url}/svc/oauth/authorize`));
        await page.setContent(`<iframe src="${url.replace(/"/g, "&quot;")}"></iframe>`);
        assert.equal((await answered).status(), 200, "the app answered the framed request");
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        await frame.waitForLoadState("load");
        assert.match(frame.url(), /^chrome-error:/, "Chromium blocked the frame: it shows its error page instead");
      } finally {
        await context.close();
      }
    });
  }));

async function screenshot(page: Page, width: string): Promise<void> {
  const shot = await page.screenshot({ fullPage: true });
  assert.ok(shot.length > 5_000, `the ${width} px screenshot has content`);
  if (process.env.UPDATE_SCREENSHOTS === "1") {
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${root}docs/oauth-consent-${width}.png`, shot);
  }
}
