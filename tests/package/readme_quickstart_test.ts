// @slow: subprocesses (the Deno quick start and bash running curl); runs on Node only
// README.md's Deno quick start (examples/quickstart/deno.ts) run as printed, then
// README.md's curl block against it: a key minted through the demo sign-in runs
// the intent, and the app's own route lists the note. Runs from Node only: it
// drives Deno and bash as subprocesses.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readCodeBlocks } from "../fixtures/readme_examples.ts";
import { finished, printed, repoRoot, run, type Served, start } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const skip = runtime !== "node" && "runs on Node only: it drives Deno and bash as subprocesses";
const dir = tempDir("svc-quickstart-");
let server: Served | undefined;
after(async () => {
  if (server) {
    server.child.kill("SIGTERM");
    await server.done;
  }
  dir.remove();
});

/** README.md's sh block that calls a running quick start (it sets PORT). */
function curlBlock(): string {
  const block = readCodeBlocks(readFileSync(`${repoRoot}README.md`, "utf8"))
    .find((b) => b.lang === "sh" && b.text.startsWith("PORT="));
  assert.ok(block, "README.md shows how to call a quick start");
  return block.text;
}

test("README.md's Deno quick start runs as printed and answers README.md's curl block", { skip }, async () => {
  const child = start(
    [
      `${repoRoot}node_modules/.bin/deno`,
      "run",
      "-A",
      "--config",
      `${repoRoot}deno.json`,
      `${repoRoot}examples/quickstart/deno.ts`,
    ],
    dir.path,
    { PORT: "0" },
  );
  let seen = "";
  child.stdout!.on("data", (d) => seen += d);
  server = { child, url: "", done: finished(child), stdout: () => seen };
  const [, port] = await printed(server, /listening on http:\/\/127\.0\.0\.1:(\d+)/);
  const script = curlBlock().replace(/^PORT=\d+/, `PORT=${port}`);
  const ran = await run(["bash", "-c", `set -euo pipefail\n${script}`], dir.path);
  assert.equal(ran.code, 0, ran.stderr);
  assert.match(ran.stdout, /\{"ok":true,"intent":"notes.create","result":\{"id":"[0-9a-f-]{36}"\}\}/);
  assert.match(ran.stdout, /\[\{"id":"[0-9a-f-]{36}","userId":"alice","title":"Buy milk"\}\]/);
});
