// @slow: runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) as a subprocess
// The suite's server scenarios against the example notes app on a real socket, at /svc/mcp. The suite sends no
// Authorization header, so alice's agent key is added in front of the app to requests without one (every other
// header, Origin and Host included, reaches the app as sent). Two scenarios call tools by fixed names
// (`test_simple_text`, `test_error_handling`): the test gives the app those two intents. The only failures allowed
// are the optional capabilities the server does not offer, each named below with its reason; any other failure, and
// any listed scenario that starts to pass, fails the test (the suite's own baseline rule).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { defineIntent } from "../../mod.ts";
import { nodeBinary, type NotesAppServer, startNotesApp } from "../fixtures/notes_app_server.ts";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

/** The scenarios expected to fail, each for a capability the server does not offer (it serves tools only). */
const NOT_OFFERED: Record<string, string> = {
  "logging-set-level": "logging: the server declares no logging capability",
  "completion-complete": "completion: no prompts or resource templates to complete",
  "tools-call-image": "image content: intents return JSON (text and structuredContent)",
  "tools-call-audio": "audio content: intents return JSON",
  "tools-call-embedded-resource": "embedded resources: the server offers no resources",
  "tools-call-mixed-content": "image and embedded content: intents return JSON",
  "tools-call-with-logging": "logging: no log notifications during a call",
  "tools-call-with-progress": "progress: stateless JSON answers, no progress notifications",
  "tools-call-sampling": "sampling: the server never asks the client's model",
  "tools-call-elicitation": "elicitation: only the URL-mode elicitation of approvals, not form elicitation",
  "elicitation-sep1034-defaults": "elicitation: no form elicitation",
  "elicitation-sep1330-enums": "elicitation: no form elicitation",
  "resources-list": "resources: not offered",
  "resources-read-text": "resources: not offered",
  "resources-read-binary": "resources: not offered",
  "resources-templates-read": "resources: not offered",
  "resources-subscribe": "resources: not offered",
  "resources-unsubscribe": "resources: not offered",
  "prompts-list": "prompts: not offered",
  "prompts-get-simple": "prompts: not offered",
  "prompts-get-with-args": "prompts: not offered",
  "prompts-get-embedded-resource": "prompts: not offered",
  "prompts-get-with-image": "prompts: not offered",
  // A WARNING, which the suite's baseline counts as a failure: the scenario opens several GET streams in a session.
  "server-sse-multiple-streams": "sessions and server-initiated SSE streams: the endpoint is stateless (a MAY of " +
    "Streamable HTTP), GET answers 405",
};

/** The two tools the suite calls by name. */
const suiteTools = [
  defineIntent({
    name: "test_simple_text",
    title: "Answer a simple text (the conformance suite's tools-call-simple-text)",
    requiredScopes: [],
    output: z.string(),
    handler: () => "This is a simple text response for testing.",
  }),
  defineIntent({
    name: "test_error_handling",
    title: "Fail (the conformance suite's tools-call-error)",
    requiredScopes: [],
    handler: () => {
      throw new Error("This tool intentionally returns an error for testing");
    },
  }),
];

let app: NotesAppServer;
let dir: ReturnType<typeof tempDir>;

before(async () => {
  app = await startNotesApp({ moreIntents: suiteTools, bearer: true });
  dir = tempDir("svc-conformance-");
});
after(async () => {
  await app?.close();
  dir?.remove();
});

test("the MCP conformance suite's server scenarios pass against the notes app, but for capabilities not offered", async () => {
  const baseline = join(dir.path, "expected-failures.yml");
  writeFileSync(baseline, "server:\n" + Object.keys(NOT_OFFERED).map((s) => `  - ${s}\n`).join(""));
  const output = join(dir.path, "results");
  const conformance = join(repoRoot, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
  const out = await run(
    [nodeBinary, conformance, "server", "--url", `${app.url}/svc/mcp`, "--expected-failures", baseline, "-o", output],
    dir.path,
  );
  const summary = out.stdout.slice(out.stdout.indexOf("=== SUMMARY ==="));
  assert.equal(out.code, 0, `the suite found failures beyond the baseline:\n${summary}\n${out.stderr}`);
  // Each scenario's checks, by scenario: the ones that must pass did, dns-rebinding-protection among them.
  const results = new Map<string, { status: string }[]>();
  for (const entry of readdirSync(output)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T/.exec(entry)?.[1];
    if (scenario) results.set(scenario, JSON.parse(readFileSync(join(output, entry, "checks.json"), "utf8")));
  }
  for (const scenario of ["server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error"]) {
    const checks = results.get(scenario) ?? [];
    assert.ok(checks.length > 0 && checks.every((c) => c.status !== "FAILURE"), `${scenario}: ${summary}`);
  }
  const rebinding = results.get("dns-rebinding-protection") ?? [];
  assert.equal(rebinding.filter((c) => c.status === "SUCCESS").length, 2, `dns-rebinding-protection: ${summary}`);
});
