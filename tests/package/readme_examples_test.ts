// The request and response examples of README.md and docs/guide.md, replayed
// in order against a running cloud and a running app (real sockets on
// 127.0.0.1), so the documentation cannot drift from the behaviour; and
// README.md's TypeScript blocks, each the copy of a file the static checks
// type-check (and readme_type_check_test.ts, a subprocess, checks on its own). Credentials are filled in
// as a reader would: the signed-in user on /svc/keys, the key minted above on
// /svc/agent/*, the project's SDK auth on the SDK routes, alice's agent key on
// /v1/agent/*. A value the README shows in an answer (an id, a key) stands for
// the real one in later requests.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { z } from "zod";
import { createSvc, defineIntent, type Svc } from "../../mod.ts";
import type { RunningServer } from "../../core/http/mod.ts";
import { differences, type Example, readCodeBlocks, readExamples } from "../fixtures/readme_examples.ts";
import { type CloudServer, listen, startCloudServer } from "../fixtures/servers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

/** The Markdown files whose examples are replayed, in this order. */
const DOCUMENTS = ["README.md", "docs/guide.md"];
const examples = DOCUMENTS.flatMap((file) => readExamples(readFileSync(file, "utf8"), file));
const dir = tempDir("svc-readme-");
let cloud: CloudServer;
let svc: Svc;
let app: RunningServer;
let aliceKey: string;
let appKey: string;
/** What the README shows in an answer → the real value, for later requests. */
const shownAs = new Map<string, string>();

before(async () => {
  cloud = await startCloudServer(`file:${dir.file("cloud.db")}`);
  const minted = await cloud.sdk("POST", "/v1/sdk/keys", { userId: "alice", name: "alice's agent", scopes: [] });
  aliceKey = (await minted.json()).key;
  svc = createSvc({
    userResolver: (req) => req.headers.get("x-user"),
    scopes: ["notes:read", "notes:write"],
    intents: [defineIntent({
      name: "notes.create",
      title: "Create a note",
      requiredScopes: ["notes:write"],
      input: z.object({ title: z.string().min(1) }),
      output: z.object({ id: z.string(), title: z.string() }),
      handler: ({ title }) => ({ id: crypto.randomUUID(), title }),
    })],
  });
  app = await listen(svc.handle);
  // The agent of /svc/agent/* belongs to another user than the examples' alice, so GET /svc/keys shows only hers.
  const appMinted = await fetch(`${app.url}/svc/keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user": "dora" },
    body: JSON.stringify({ name: "dora's agent", scopes: ["notes:read", "notes:write"] }),
  });
  appKey = (await appMinted.json()).key;
});

after(async () => {
  await app.close();
  await svc.close();
  await cloud.stop();
  dir.remove();
});

function fill(value: unknown): unknown {
  if (typeof value === "string") {
    if (value === "<sha-256 hex of the key>") return "ab".repeat(32);
    return shownAs.get(value) ?? value;
  }
  if (Array.isArray(value)) return value.map(fill);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v)]));
  }
  return value;
}

function request(example: Example): Request {
  const path = example.path.split("/").map((segment) =>
    segment.includes("…") ? shownAs.get(segment) ?? crypto.randomUUID() : segment
  ).join("/");
  const headers = new Headers(Object.entries(example.headers).filter(([, value]) => !value.includes("…")));
  if (path.startsWith("/svc/keys")) headers.set("x-user", "alice");
  if (path.startsWith("/svc/agent/")) headers.set("authorization", `Bearer ${appKey}`);
  if (path.startsWith("/v1/agent/")) headers.set("authorization", `Bearer ${aliceKey}`);
  if (/^\/v1\/(sdk|events|agents)/.test(path)) {
    headers.set("authorization", `Bearer ${cloud.sdkSecret}`);
    headers.set("x-svc-project", cloud.projectId);
  }
  if (example.body !== undefined) headers.set("content-type", "application/json");
  const base = path.startsWith("/svc") ? app.url : cloud.url;
  const body = example.body === undefined ? undefined : JSON.stringify(fill(example.body));
  return new Request(base + path, { method: example.method, headers, body });
}

/** Remembers the real values behind the ids and keys the README shows. */
function remember(shown: unknown, actual: unknown): void {
  if (shown === null || typeof shown !== "object" || actual === null || typeof actual !== "object") return;
  const s = shown as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  for (const field of ["id", "key"]) {
    if (typeof s[field] === "string" && typeof a[field] === "string" && s[field] !== "…") {
      shownAs.set(s[field] as string, a[field] as string);
    }
  }
}

test("README.md and docs/guide.md hold request and response examples for both APIs", () => {
  assert.ok(examples.some((e) => e.path.startsWith("/svc/")));
  assert.ok(examples.some((e) => e.path.startsWith("/v1/")));
});

for (const example of examples) {
  test(`${example.file}:${example.line} ${example.method} ${example.path} answers as shown`, async () => {
    for (const answer of example.answers) {
      const res = await fetch(request(example));
      const text = await res.text();
      const body = text === "" ? undefined : JSON.parse(text);
      remember(answer.body, body);
      assert.equal(res.status, answer.status, text);
      if (answer.body !== undefined) assert.deepEqual(differences(answer.body, body), [], text);
    }
  });
}

const readme = readCodeBlocks(readFileSync("README.md", "utf8"));

test("every TypeScript block of README.md is a file of the repository, copied verbatim", () => {
  const typescript = readme.filter((block) => block.lang === "ts");
  assert.ok(typescript.length >= 4, "the four quick starts");
  for (const block of typescript) {
    assert.ok(block.source, `README.md:${block.line}: a \`\`\`ts block needs <!-- path/to/file.ts --> above it`);
    assert.ok(block.source.startsWith("examples/"), `README.md:${block.line}: ${block.source} is not under examples/`);
    const file = readFileSync(block.source, "utf8");
    assert.ok(
      block.text === file,
      `README.md:${block.line} differs from ${block.source}: copy the file into the block`,
    );
  }
});

test("every quick start under examples/quickstart/ is shown in README.md", () => {
  const shown = new Set(readme.map((block) => block.source));
  for (const name of readdirSync("examples/quickstart")) {
    assert.ok(shown.has(`examples/quickstart/${name}`), `examples/quickstart/${name} is not in README.md`);
  }
});

test("README.md has no code block in a language the tests neither run nor check", () => {
  // json and js: the MCP client configurations and the TypeScript SDK snippet of "Connect an MCP client", run by
  // tests/examples/mcp_clients_test.ts. python: that section's Python SDK snippet, shown and not run (no Python
  // where the tests run; the section says so).
  const languages = ["ts", "sh", "json", "js", "python"];
  for (const block of readme) assert.ok(languages.includes(block.lang), `README.md:${block.line}: ${block.lang}`);
  for (const block of readme.filter((b) => b.lang === "python")) {
    assert.match(block.text, /streamablehttp_client/, `README.md:${block.line}: only the Python SDK snippet`);
  }
});
