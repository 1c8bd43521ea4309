// @slow: a browser
// The agent client, unchanged, in a real browser: Chromium loads core/agent/agent_client.ts
// and its imports (types stripped by Node, nothing else changed) from the same
// origin that serves an app's /svc and a cloud's /v1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as nodeModule from "node:module";
import { withSvc } from "../../../mod.ts";
import { mint, notesSvc } from "../../fixtures/notes_svc.ts";
import { startTestCloud } from "../../fixtures/test_cloud.ts";
import { listen } from "../../fixtures/servers.ts";
import { inChromium, launchChromium } from "../../fixtures/chromium.ts";

const strip = (nodeModule as { stripTypeScriptTypes?: (code: string) => string }).stripTypeScriptTypes;

const PAGE = `<!doctype html><script type="module">
  import { AgentClient } from "/core/agent/agent_client.ts";
  const { appKey, cloudKey } = await (await fetch("/keys.json")).json();
  const app = new AgentClient({ key: appKey, appUrl: location.origin });
  const inbox = new AgentClient({ key: cloudKey, cloudUrl: location.origin });
  const result = {};
  try {
    result.allowed = (await app.intents()).filter((i) => i.allowed).map((i) => i.name);
    result.run = await app.run("notes.list");
    try { await app.run("notes.create", { title: "x" }); } catch (e) { result.refused = e.code; }
    const stop = new AbortController();
    for await (const item of inbox.inbox({ signal: stop.signal, wait: 1 })) { result.event = item.payload; stop.abort(); }
    result.after = (await inbox.poll()).items.length;
  } catch (e) { result.error = String(e); }
  window.__result = result;
</script>`;

const title = "the agent client runs unchanged in a browser: intents, run, a typed refusal, the inbox and its ack";
inChromium(title, () =>
  test(title, async () => {
    const svc = notesSvc();
    const cloud = await startTestCloud();
    const appKey = (await mint(svc, "alice", ["notes:read"])).key;
    const { key: cloudKey, agentId } = await cloud.mintKey("alice");
    await cloud.sdk("POST", "/v1/events", { body: { eventId: "e1", type: "hello", agentId, payload: { hi: 1 } } });
    const root = fileURLToPath(new URL("../../../", import.meta.url));
    const app = withSvc(svc);
    const server = await listen((req) => {
      const { pathname } = new URL(req.url);
      if (pathname === "/") return new Response(PAGE, { headers: { "content-type": "text/html" } });
      if (pathname === "/keys.json") return Response.json({ appKey, cloudKey });
      if (/^\/core\/[a-z_/]+\.ts$/.test(pathname)) {
        const code = strip!(readFileSync(root + pathname.slice(1), "utf8"));
        return new Response(code, { headers: { "content-type": "text/javascript" } });
      }
      if (pathname.startsWith("/v1/")) return cloud.cloud.handle(req);
      return app(req);
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => (globalThis as { __result?: unknown }).__result, undefined, { timeout: 15_000 });
      const result = await page.evaluate(() => (globalThis as { __result?: unknown }).__result);
      assert.deepEqual(result, {
        allowed: ["notes.list", "notes.broken", "notes.missing", "notes.lies"],
        run: { notes: ["a", "b"] },
        refused: "FORBIDDEN_SCOPE",
        event: { hi: 1 },
        after: 0,
      });
    } finally {
      await browser.close();
      await server.close();
      await cloud.close();
      await svc.close();
    }
  }));
