// @slow: a fresh clone with its own npm install, npm start, and the packed tarball on Node 22, Node 24, Bun and Deno
// The first hour of a newcomer, replayed: `git clone` of this repository into an empty folder, `npm install` there (the
// registry through npm's cache, nothing else), `npm start` with the walk-through it prints pasted into bash, then the
// README's Install steps (`npm run build:npm`, `npm pack` in dist/npm) and an empty app of one's own that installs the
// tarball and runs each quick start of examples/quickstart/ as a file, each answering README.md's curl block: Node on
// Node 22 (npm's `node@22`, kept in a cache folder that .ci/run fills) and Node 24, Bun on Bun, Deno on Deno, Elysia on
// Bun and, through the toolkit's adapters, on Node 24 and Deno. Node 20's one-line refusal is old_node_test.ts's.
// Runs from Node only: it drives git, npm, bash and every runtime as subprocesses.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { delimiter, join } from "node:path";
import process from "node:process";
import { readCodeBlocks } from "../fixtures/readme_examples.ts";
import { finished, printed, repoRoot, run, type Served } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { nodeRelease } from "./node_release.ts";

const skip = runtime !== "node" && "runs on Node only: it drives git, npm, bash and every runtime as subprocesses";
const dir = tempDir("svc-first-hour-");
const clone = dir.file("agent-access");
const app = dir.file("my-app");
/** npm's `node@22`, from its cache folder (see node_release.ts). */
let node22 = "";
/** The clone's own runtimes first on PATH, as its npm scripts have them. */
const PATH = () => `${join(clone, "node_modules", ".bin")}${delimiter}${process.env.PATH}`;
const bin = (name: string): string => join(clone, "node_modules", ".bin", name);
const running: Served[] = [];
after(async () => {
  for (const server of [...running]) await stop(server);
  dir.remove();
});

/** How long each step of the set-up took, reported by the first test (a slow machine shows where). */
const took: string[] = [];

/** Runs a command and fails the test with its output unless it exits 0. */
async function ok(command: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const began = Date.now();
  const ran = await run(command, cwd, { PATH: PATH(), ...env });
  took.push(`${command.slice(0, 3).join(" ")}: ${((Date.now() - began) / 1000).toFixed(1)} s`);
  assert.equal(ran.code, 0, `${command.join(" ")}: ${ran.stdout}${ran.stderr}`);
  return ran.stdout;
}

before(async () => {
  if (skip) return;
  // The commit under test, cloned as a newcomer does; `npm install` reads the lock file (about 25 s from npm's cache).
  const head = (await run(["git", "rev-parse", "HEAD"], repoRoot)).stdout.trim();
  await ok(["git", "clone", "--quiet", repoRoot, clone], dir.path);
  await ok(["git", "checkout", "--quiet", head], clone);
  await ok(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund"], clone);
  // README.md's Install: build, pack, and an empty app that installs the tarball, zod and elysia.
  await ok(["npm", "run", "build:npm"], clone);
  const packed = JSON.parse(await ok(["npm", "pack", "--json"], join(clone, "dist", "npm")));
  const tarball = join(clone, "dist", "npm", packed[0].filename);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "my-app", private: true, type: "module" }));
  await ok(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", tarball, "zod", "elysia"], app);
  for (const file of readdirSync(join(clone, "examples", "quickstart"))) {
    copyFileSync(join(clone, "examples", "quickstart", file), join(app, file));
  }
  node22 = await nodeRelease(22);
}, { timeout: 600_000 });

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a long-running command in its own process group (npm start is npm, a shell and Deno) and resolves once its
 * output matches `ready`.
 */
async function started(command: string[], cwd: string, env: Record<string, string>, ready: RegExp): Promise<Served> {
  const inherited = Object.entries(process.env).filter(([k]) => !k.startsWith("SVC_") && k !== "NODE_TEST_CONTEXT");
  const child = spawn(command[0], command.slice(1), {
    cwd,
    env: { ...Object.fromEntries(inherited), NO_COLOR: "1", PATH: PATH(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let seen = "";
  child.stdout!.on("data", (d) => seen += d);
  const server: Served = { child, url: "", done: finished(child), stdout: () => seen };
  running.push(server);
  await printed(server, ready);
  return server;
}

async function stop(server: Served): Promise<void> {
  process.kill(-server.child.pid!, "SIGTERM");
  await server.done;
  running.splice(running.indexOf(server), 1);
}

test("the fresh clone's npm start prints a walk-through whose lines, pasted into bash, all work", {
  skip,
}, async (t) => {
  t.diagnostic(`set-up: ${took.join(", ")}`);
  const t0 = Date.now();
  const npmStart = await started(["npm", "start"], clone, { APP_PORT: "0", CLOUD_PORT: "0" }, /\n8\. [\s\S]*\n\n$/);
  try {
    t.diagnostic(`npm start ready after ${Date.now() - t0} ms`);
    const out = npmStart.stdout();
    const cloud = /^Cloud +(http:\S+)/m.exec(out)![1];
    // The indented command lines of steps 0 to 7, as a reader pastes them (prose lines are not commands); step 8
    // needs a secret rotated in the dashboard first (tests/e2e/revocation_edges_test.ts covers what it shows).
    const steps = out.slice(0, out.indexOf("\n8. "));
    const lines = steps.split("\n").filter((line) => /^ {3}([A-Z_]+=|curl |echo )/.test(line)).map((l) => l.trim());
    assert.equal(lines.length, 13, out);
    // The app mirrors the new key to the cloud in the background; a reader's pause is a wait for it here.
    const mirrored = `for i in $(seq 200); do [ "$(curl -s -o /dev/null -w '%{http_code}' ` +
      `"${cloud}/v1/agent/inbox?cursor=0" -H "authorization: Bearer $KEY")" = 200 ] && break; done`;
    const keyLine = lines.findIndex((line) => line.startsWith("KEY="));
    const script = [...lines.slice(0, keyLine + 1), mirrored, ...lines.slice(keyLine + 1)].join("\n");
    const ran = await run(["bash", "-c", `set -euo pipefail\n${script}`], clone, { PATH: PATH() });
    t.diagnostic(`walk-through done after ${Date.now() - t0} ms`);
    assert.equal(ran.code, 0, ran.stdout + ran.stderr);
    assert.match(ran.stdout, /"key":"svc_live_/);
    assert.match(ran.stdout, /"name":"notes\.create"/);
    assert.match(ran.stdout, /\{"ok":true,"intent":"notes.create","result":\{"id":"[0-9a-f-]{36}"/);
    assert.match(ran.stdout, /FORBIDDEN_SCOPE/);
    assert.match(
      ran.stdout,
      /\{"activity":\[\{"id":"act_[0-9A-Z]{26}"[^\n]*"outcome":"refused"/,
      "step 3 lists what the agent did",
    );
    assert.match(ran.stdout, /"title":"Call Bob"/);
    assert.match(ran.stdout, /handled and acknowledged 1 event\(s\)/);
    assert.match(ran.stdout, /\{"items":\[\],"nextCursor":\d+\}/);
    assert.match(ran.stdout, /\/violations\?key=[0-9a-f-]{36}\n\S+\/inbox\/alice\?status=acknowledged\n$/);
  } finally {
    await stop(npmStart);
  }
});

/** README.md's sh block that calls a running quick start (it sets PORT). */
function curlBlock(): string {
  const block = readCodeBlocks(readFileSync(join(clone, "README.md"), "utf8"))
    .find((b) => b.lang === "sh" && b.text.startsWith("PORT="));
  assert.ok(block, "README.md shows how to call a quick start");
  return block.text;
}

/** A quick start on a runtime: the command (given the file) and how the file is changed first, if the README says. */
interface Run {
  file: string;
  command: (file: string) => string[];
  /** The README's own instruction for this runtime (Elysia on Deno imports serve from adapters/deno). */
  edit?: (source: string) => string;
}
const runs: Record<string, Run> = {
  "node.ts on Node 22 (npm's node@22)": { file: "node.ts", command: (file) => [node22, file] },
  "node.ts on Node 24": { file: "node.ts", command: (file) => [bin("node"), file] },
  "bun.ts on Bun": { file: "bun.ts", command: (file) => [bin("bun"), file] },
  "deno.ts on Deno": { file: "deno.ts", command: (file) => [bin("deno"), "run", "-A", "--no-lock", file] },
  "elysia.ts on Bun": { file: "elysia.ts", command: (file) => [bin("bun"), file] },
  "elysia_node.ts on Node 24": { file: "elysia_node.ts", command: (file) => [bin("node"), file] },
  "elysia_node.ts on Deno (serve from adapters/deno)": {
    file: "elysia_node.ts",
    command: (file) => [bin("deno"), "run", "-A", "--no-lock", file],
    edit: (source) => source.replace('"@svc/agent-access/adapters/node"', '"@svc/agent-access/adapters/deno"'),
  },
};

for (const [name, quickStart] of Object.entries(runs)) {
  test(`the quick start ${name}, in an app with the tarball installed, answers README.md's curl block`, {
    skip,
  }, async () => {
    let file = quickStart.file;
    if (quickStart.edit) {
      const source = readFileSync(join(app, file), "utf8");
      const edited = quickStart.edit(source);
      assert.notEqual(edited, source, "the edit the README describes applies");
      file = `edited_${file}`;
      writeFileSync(join(app, file), edited);
    }
    const port = await freePort();
    const server = await started(
      quickStart.command(file),
      app,
      { PORT: String(port) },
      new RegExp(`listening on http://127\\.0\\.0\\.1:${port}\\n`),
    );
    try {
      const script = curlBlock().replace(/^PORT=\d+/, `PORT=${port}`);
      const ran = await run(["bash", "-c", `set -euo pipefail\n${script}`], app);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /\{"ok":true,"intent":"notes.create","result":\{"id":"[0-9a-f-]{36}"\}\}/);
      assert.match(ran.stdout, /\[\{"id":"[0-9a-f-]{36}","userId":"alice","title":"Buy milk"\}\]/);
    } finally {
      await stop(server);
    }
  });
}

test("every quick start file is run above", { skip }, () => {
  const ran = new Set(Object.values(runs).map((r) => r.file));
  for (const file of readdirSync(join(repoRoot, "examples", "quickstart"))) assert.ok(ran.has(file), file);
});
