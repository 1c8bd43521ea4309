// @slow @serial: a runtime probe (a real Node 20, subprocesses; builds dist/npm)
// Node older than 22 is refused at once, with one line naming the version needed: the built package's entry, each
// adapter and the `svc-cloud` command line, each run by a real Node 20 (the machine's, or npm's `node@20`, cached).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { finished, repoRoot, run, start } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";
import { nodeRelease } from "./node_release.ts";

const skip = runtime !== "node" && "runs on Node only: it drives npm and an old Node as subprocesses";
const dir = tempDir("svc-old-node-");
const built = join(repoRoot, "dist", "npm");
let oldNode = "";
after(() => dir.remove());

/** A Node older than 22 on PATH, or npm's `node@20` from its cache folder (see node_release.ts). */
async function findOldNode(): Promise<string> {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(folder, "node");
    if (!existsSync(candidate)) continue;
    const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
    if (Number(/^v(\d+)\./.exec(version)?.[1]) < 22) return candidate;
  }
  return await nodeRelease(20);
}

before(async () => {
  if (skip) return;
  oldNode = await findOldNode();
  const PATH = `${join(repoRoot, "node_modules", ".bin")}${delimiter}${process.env.PATH}`;
  const build = await run([process.execPath, "scripts/build_npm.ts"], repoRoot, { PATH });
  assert.equal(build.code, 0, build.stderr);
}, { timeout: 300_000 });

/** Runs a command with a guard: a process still running after 60 s is killed, so a hang fails the test. */
async function runGuarded(command: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = start(command, dir.path);
  const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
  try {
    return await finished(child);
  } finally {
    clearTimeout(guard);
  }
}

/** The one line Node 20 gets. */
function refusal(what: string, version: string): string {
  return `${what} needs Node.js 22 or newer (this is Node.js ${version}): install Node.js 22+, or run it with Deno or Bun.`;
}

test("svc-cloud serve on Node 20 prints one line naming Node 22 and exits with status 1", { skip }, async () => {
  const version = spawnSync(oldNode, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
  assert.ok(Number(version.split(".")[0]) < 22, version);
  const cli = join(built, "cloud", "main.js");
  const served = await runGuarded([oldNode, cli, "serve", "--port", "0", "--db", ":memory:"]);
  assert.equal(served.stderr, refusal("@svc/agent-access", version) + "\n");
  assert.equal(served.stdout, "");
  assert.equal(served.code, 1);
});

for (
  const entry of [
    "mod.js",
    "cloud/mod.js",
    "adapters/node.js",
    "adapters/bun.js",
    "adapters/deno.js",
    "adapters/elysia.js",
  ]
) {
  test(`an app importing ${entry} on Node 20 gets one line naming Node 22 and exits with status 1`, {
    skip,
  }, async () => {
    const version = spawnSync(oldNode, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim();
    const app = dir.file(`app_${entry.replace(/\W/g, "_")}.mjs`);
    writeFileSync(app, `import ${JSON.stringify(pathToFileURL(join(built, entry)).href)};\nconsole.log("started");\n`);
    const started = await runGuarded([oldNode, app]);
    assert.equal(started.stderr, refusal("@svc/agent-access", version) + "\n");
    assert.equal(started.stdout, "");
    assert.equal(started.code, 1);
  });
}
