import { test } from "node:test";
import assert from "node:assert/strict";
import type { RunningServer } from "../../mod.ts";
import { withSvc } from "../../mod.ts";
import { mint, notesSvc } from "../fixtures/notes_svc.ts";
import { codeOf, connectMcp } from "../fixtures/mcp_client.ts";
import { runtime } from "../fixtures/runtime.ts";

/** This runtime's own adapter. */
async function serveHere(fetch: (req: Request) => Response | Promise<Response>): Promise<RunningServer> {
  const options = { port: 0, hostname: "127.0.0.1" };
  if (runtime === "deno") return (await import("../../adapters/deno.ts")).serve(fetch, options);
  if (runtime === "bun") return (await import("../../adapters/bun.ts")).serve(fetch, options);
  return (await import("../../adapters/node.ts")).serve(fetch, options);
}

test(`the official MCP client lists and runs a key's intents over a real socket (on ${runtime})`, async () => {
  const svc = notesSvc();
  const server = await serveHere(withSvc(svc));
  try {
    const { key, id } = await mint(svc, "alice", ["notes:read"]);
    const client = await connectMcp(server.url, key);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ["notes.broken", "notes.lies", "notes.list", "notes.missing"]);
      const listed = await client.callTool({ name: "notes.list", arguments: {} });
      assert.deepEqual(listed.structuredContent, { notes: ["a", "b"] });

      const refused = await client.callTool({ name: "notes.create", arguments: { title: "no" } });
      assert.equal(refused.isError, true);
      assert.equal(codeOf(refused), "FORBIDDEN_SCOPE");
      const violations = await svc.violations({ keyId: id });
      assert.deepEqual(violations.map((v) => [v.kind, v.intent]), [["FORBIDDEN_SCOPE", "notes.create"]]);
    } finally {
      await client.close();
    }
    await assert.rejects(connectMcp(server.url, null), "no key, no connection");
  } finally {
    await server.close();
    await svc.close();
  }
});
