// The repository's own install, as CI and a newcomer run it: `npm ci` accepts
// the lock file as it is, and npm 11 finds every install script reviewed in
// `allowScripts`. A dry run checks both without downloading anything.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const skip = runtime !== "node" && "runs on Node only: it drives npm";
const dir = tempDir("svc-npm-ci-");
after(() => dir.remove());

test("npm ci accepts the lock file and warns about no unreviewed install script", { skip }, async () => {
  for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(repoRoot, file), dir.file(file));
  const ci = await run(["npm", "ci", "--dry-run", "--no-audit", "--no-fund"], dir.path);
  assert.equal(ci.code, 0, ci.stderr);
  assert.doesNotMatch(ci.stdout + ci.stderr, /install-scripts|not yet covered by allowScripts/);
});
