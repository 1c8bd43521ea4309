// @slow: runs the MCP Inspector CLI as a subprocess
// The MCP Inspector's command line (`mcp-inspector --cli`, @modelcontextprotocol/inspector) against /svc/mcp on a real
// socket, with an access token the app issued by OAuth consent sent as its Authorization header: it lists the tools
// the token may call and calls one, in each protocol era it speaks: `legacy` (2025-11-25, initialize) and `modern`
// (2026-07-28: server/discover, then _meta and the Mcp-Method/Mcp-Name headers on every request). Skipped, saying
// why, when the Inspector is not installed.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSvc, type Svc } from "../../../mod.ts";
import { serve } from "../../../adapters/node.ts";
import type { RunningServer } from "../../../core/http/mod.ts";
import { intents, SCOPES } from "../../fixtures/notes_svc.ts";
import { oauthAccessToken } from "../../fixtures/oauth_app.ts";
import { repoRoot, run } from "../../fixtures/subprocess.ts";

const inspector = join(repoRoot, "node_modules", ".bin", "mcp-inspector");
const absent = existsSync(inspector)
  ? false
  : "the MCP Inspector is not installed: npm install --save-dev @modelcontextprotocol/inspector";

describe("the MCP Inspector CLI with an OAuth-issued token", { skip: absent }, () => {
  let svc: Svc;
  let server: RunningServer;
  let token: string;

  before(async () => {
    svc = createSvc({
      userResolver: (req) => req.headers.get("x-user"),
      scopes: [...SCOPES],
      intents,
      storage: ":memory:",
      logger: () => {},
      oauth: {},
    });
    server = await serve((req) => svc.handle(req), { port: 0, hostname: "127.0.0.1" });
    token = await oauthAccessToken((req) => svc.handle(req), ["notes:read"]);
  });
  after(async () => {
    await server?.close();
    await svc?.close();
  });

  /** Runs `mcp-inspector --cli URL …` under Node with the token as a header; its parsed JSON output. */
  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    const cli = ["node", inspector, "--cli", `${server.url}/svc/mcp`, "--transport", "http"];
    const out = await run([...cli, "--header", `Authorization: Bearer ${token}`, ...args], repoRoot);
    assert.equal(out.code, 0, `mcp-inspector exited ${out.code}: ${out.stderr}`);
    return JSON.parse(out.stdout);
  }

  for (const era of ["legacy", "modern"]) {
    test(`${era}: tools/list shows the tools the token may call, by name`, async () => {
      const { tools } = await inspect("--protocol-era", era, "--method", "tools/list") as { tools: { name: string }[] };
      const names = tools.map((t) => t.name);
      assert.deepEqual(names, ["notes.broken", "notes.lies", "notes.list", "notes.missing"]);
    });

    test(`${era}: tools/call runs an intent with the token`, async () => {
      const result = await inspect("--protocol-era", era, "--method", "tools/call", "--tool-name", "notes.list") as {
        structuredContent: unknown;
      };
      assert.deepEqual(result.structuredContent, { notes: ["a", "b"] });
    });
  }
});
