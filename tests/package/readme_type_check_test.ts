// @slow: a deno check subprocess
// The files README.md copies into its TypeScript blocks (readme_examples_test.ts checks they are copied verbatim)
// type-check with deno check.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { readCodeBlocks } from "../fixtures/readme_examples.ts";
import { repoRoot, run } from "../fixtures/subprocess.ts";

test("the files README.md copies type-check with deno check", { timeout: 120_000 }, async () => {
  const readme = readCodeBlocks(readFileSync(`${repoRoot}README.md`, "utf8"));
  const sources = readme.flatMap((block) => block.source ? [block.source] : []);
  assert.ok(sources.length >= 4, "the four quick starts");
  const checked = await run([`${repoRoot}node_modules/.bin/deno`, "check", ...sources], repoRoot);
  assert.equal(checked.code, 0, checked.stderr);
});
