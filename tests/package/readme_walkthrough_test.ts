// @slow: subprocesses (bash and curl)
// docs/operating.md's "A first walk-through with curl", run by bash as a reader pastes
// it (npm scripts, curl, sed), against its own database and a free port
// instead of ./data/svc.db and 8787. Runs from Node only: it drives npm.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { spawn } from "node:child_process";
import process from "node:process";
import { repoRoot } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const skip = runtime !== "node" && "runs on Node only: it drives npm and bash as subprocesses";
const dir = tempDir("svc-walkthrough-");
after(() => dir.remove());

function walkthrough(): string {
  const readme = readFileSync(`${repoRoot}/docs/operating.md`, "utf8");
  const heading = readme.indexOf("## A first walk-through with curl");
  assert.ok(heading >= 0, "docs/operating.md has its walk-through");
  const start = readme.indexOf("```sh\n", heading) + "```sh\n".length;
  return readme.slice(start, readme.indexOf("```\n", start));
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a script in its own process group and, once it ends, stops what it left in the background (the cloud
 * started with `&`: npm does not pass SIGTERM on to it).
 */
function bash(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("bash", ["-c", script], {
    cwd: repoRoot,
    env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => stdout += chunk);
  child.stderr.on("data", (chunk) => stderr += chunk);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => {
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch { /* nothing left in the group */ }
      resolve({ code, stdout, stderr });
    });
  });
}

test(
  "docs/operating.md's curl walk-through runs as written and acknowledges the event it emitted",
  { skip },
  async () => {
    const port = await freePort();
    const script = walkthrough();
    assert.ok(script.startsWith("npm run cloud &"), "the walk-through starts the cloud");
    const adapted = script
      .replace("npm run cloud &", `npm run cloud -- --port ${port} &`)
      .replace("BASE=http://127.0.0.1:8787", `BASE=http://127.0.0.1:${port}`);
    const ran = await bash(`set -euo pipefail\n${adapted}`, {
      ...process.env,
      SVC_DB_URL: `file:${dir.file("svc.db")}`,
    });
    assert.equal(ran.code, 0, ran.stderr);
    const lines = ran.stdout.trim().split("\n");
    assert.match(lines.find((line) => line.startsWith('{"projectId"')) ?? "", /"sdkSecret":"svcs_/);
    assert.match(lines.find((line) => line.startsWith('{"violations"')) ?? "", /"total":1}$/);
    assert.match(ran.stdout, /"kind":"FORBIDDEN_SCOPE"/);
    assert.match(ran.stdout, /"eventId":"evt_1","type":"order.paid","agentId":"alice"/);
    assert.equal(lines.at(-2), '{"ok":true,"acknowledged":1}');
    assert.match(lines.at(-1)!, /^http:\/\/127\.0\.0\.1:\d+\/dashboard\/projects\/prj_[0-9A-Z]{26}\/violations$/);
  },
);
