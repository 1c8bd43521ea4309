// @slow: runs mcp-remote 0.15.1 and the TypeScript SDK snippet as subprocesses against the example app on a socket
// README's "Connect an MCP client", run as written: the two Claude Desktop configurations of mcp-remote (a stdio proxy:
// the test speaks JSON-RPC to its stdin and stdout, as Claude Desktop does) with the README's URL replaced by the
// example app's, and the TypeScript SDK snippet (examples/mcp_sdk_client.mjs, which the README block copies). The
// OAuth configuration completes headless: mcp-remote opens "the browser" through xdg-open, which runs $BROWSER, here
// a script that signs in as alice, allows every scope on the consent page and follows the redirect to mcp-remote's
// loopback callback (tests/fixtures/consent_browser.ts).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { readCodeBlocks } from "../fixtures/readme_examples.ts";
import { nodeBinary, type NotesAppServer, startNotesApp } from "../fixtures/notes_app_server.ts";
import { startStdioPeer } from "../fixtures/stdio_json_rpc.ts";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const README_URL = "https://notes.example.com/svc/mcp";
const section = (() => {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const start = readme.indexOf("## Connect an MCP client");
  return readme.slice(start, readme.indexOf("\n## ", start + 1));
})();
const blocks = readCodeBlocks(section);

/** The README's Claude Desktop configurations: the server's command line and environment. */
function claudeDesktop(withHeader: boolean): { args: string[]; env: Record<string, string> } {
  const configs = blocks.filter((b) => b.lang === "json" && b.text.includes('"mcp-remote"'))
    .map((b) => Object.values(JSON.parse(b.text).mcpServers)[0] as { args: string[]; env?: Record<string, string> });
  const config = configs.find((c) => c.args.includes("--header") === withHeader);
  assert.ok(config, `README's Claude Desktop configuration ${withHeader ? "with" : "without"} a header`);
  assert.equal(config.args[0], "mcp-remote");
  return { args: config.args.slice(1), env: config.env ?? {} };
}

const linux = process.platform === "linux" ? false : "the headless browser goes through xdg-open (Linux)";

describe("README's MCP clients against the example app", { timeout: 120_000 }, () => {
  let app: NotesAppServer;
  let dir: ReturnType<typeof tempDir>;

  before(async () => {
    app = await startNotesApp();
    dir = tempDir("svc-mcp-clients-");
  });
  after(async () => {
    await app?.close();
    dir?.remove();
  });

  /** Runs mcp-remote with the README's arguments (its URL the app's), initializes, lists and calls. */
  async function proxy(args: string[], env: Record<string, string>): Promise<void> {
    const mcpRemote = join(repoRoot, "node_modules", "mcp-remote", "dist", "proxy.js");
    const argv = args.map((a) => a === README_URL ? `${app.url}/svc/mcp` : a);
    const peer = startStdioPeer([nodeBinary, mcpRemote, ...argv], {
      MCP_REMOTE_CONFIG_DIR: join(dir.path, "mcp-auth"),
      DISPLAY: "",
      WAYLAND_DISPLAY: "",
      XDG_CURRENT_DESKTOP: "",
      ...env,
    });
    try {
      const init = await peer.request("initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "claude-desktop-test", version: "1.0.0" },
      });
      assert.equal((init.result as { protocolVersion?: string })?.protocolVersion, "2025-11-25", peer.stderr());
      peer.notify("notifications/initialized");
      const listed = await peer.request("tools/list");
      const names = (listed.result as { tools: { name: string }[] }).tools.map((t) => t.name);
      assert.deepEqual(names, [
        "notes.create",
        "notes.delete",
        "notes.delete_all",
        "notes.list",
        "svc.approval_status",
      ]);
      const called = await peer.request("tools/call", {
        name: "notes.create",
        arguments: { title: "From mcp-remote" },
      });
      const result = called.result as { isError?: boolean; structuredContent?: { title?: string } };
      assert.equal(result.isError, undefined, JSON.stringify(called));
      assert.equal(result.structuredContent?.title, "From mcp-remote");
    } finally {
      await peer.close();
    }
  }

  test("mcp-remote 0.15.1 with a pasted key (README's Claude Desktop configuration) connects, lists and calls", async () => {
    const { args, env } = claudeDesktop(true);
    const refuse = join(dir.path, "no-browser.sh");
    writeFileSync(refuse, "#!/bin/sh\nexit 1\n");
    chmodSync(refuse, 0o755);
    const withKey = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v.replace("svc_live_…", app.key)]));
    await proxy(args, { ...withKey, BROWSER: refuse });
  });

  test("mcp-remote 0.15.1 with the URL alone signs in by OAuth (a scripted browser consents), then lists and calls", {
    skip: linux,
  }, async () => {
    const { args } = claudeDesktop(false);
    const browser = join(dir.path, "browser.sh");
    const consent = join(repoRoot, "tests", "fixtures", "consent_browser.ts");
    writeFileSync(browser, `#!/bin/sh\nexec "${nodeBinary}" "${consent}" "$1" >>"${dir.path}/browser.log" 2>&1\n`);
    chmodSync(browser, 0o755);
    await proxy(args, { BROWSER: browser, CONSENT_USER: "alice" });
    // The client got a key of alice's named after it (mcp-remote registers as "MCP CLI Proxy"), expiring as access
    // tokens do.
    const keys = await (await fetch(`${app.url}/svc/keys`, { headers: { cookie: "session=alice" } })).json() as {
      keys: { name: string; revokedAt: string | null; expiresAt: string | null }[];
    };
    const token = keys.keys.find((k) => k.name === "MCP CLI Proxy");
    assert.ok(token && token.revokedAt === null && token.expiresAt !== null, JSON.stringify(keys));
  });

  test("README's TypeScript SDK snippet (examples/mcp_sdk_client.mjs) lists the tools and creates a note", async () => {
    const marker = section.indexOf("<!-- run: examples/mcp_sdk_client.mjs -->");
    assert.ok(marker >= 0, "the snippet names the file it copies");
    const shown = readCodeBlocks(section.slice(marker)).find((b) => b.lang === "js");
    const file = readFileSync(join(repoRoot, "examples", "mcp_sdk_client.mjs"), "utf8");
    assert.equal(shown?.text, file, "README's block is the file, verbatim");
    const out = await run([nodeBinary, join(repoRoot, "examples", "mcp_sdk_client.mjs")], repoRoot, {
      SVC_MCP_URL: `${app.url}/svc/mcp`,
      SVC_KEY: app.key,
    });
    assert.equal(out.code, 0, out.stderr);
    assert.match(
      out.stdout,
      /^tools: notes\.create, notes\.delete, notes\.delete_all, notes\.list, svc\.approval_status$/m,
    );
    assert.match(out.stdout, /^created: \{.*"title":"Buy milk"/m);
  });
});
