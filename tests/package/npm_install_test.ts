// @slow: packaging
// The repository's own install as CI and a newcomer run it (`npm install`, see
// .ci/run): npm 11 finds every install script reviewed in `allowScripts`. A dry
// run in a copy of package.json and the lock file checks it without
// downloading anything.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const skip = runtime !== "node" && "runs on Node only: it drives npm";
const dir = tempDir("svc-npm-install-");
after(() => dir.remove());

test("npm install warns about no unreviewed install script (deno, bun and node are in allowScripts)", {
  skip,
}, async () => {
  for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(repoRoot, file), dir.file(file));
  const install = await run(["npm", "install", "--dry-run", "--no-audit", "--no-fund"], dir.path);
  assert.equal(install.code, 0, install.stderr);
  assert.doesNotMatch(install.stdout + install.stderr, /install-scripts|not yet covered by allowScripts/);
});
