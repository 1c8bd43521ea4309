// README.md's curl block sets the port it calls; every quick start of examples/quickstart/ listens on that port when
// PORT is not set, so the block works as pasted whichever quick start runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { readCodeBlocks } from "../fixtures/readme_examples.ts";
import { repoRoot } from "../fixtures/subprocess.ts";

test("every quick start listens by default on the port README.md's curl block calls", () => {
  const block = readCodeBlocks(readFileSync(`${repoRoot}README.md`, "utf8"))
    .find((b) => b.lang === "sh" && b.text.startsWith("PORT="));
  assert.ok(block, "README.md shows how to call a quick start");
  const port = /^PORT=(\d+)/.exec(block.text)![1];
  const folder = `${repoRoot}examples/quickstart/`;
  const files = readdirSync(folder).filter((name) => name.endsWith(".ts"));
  assert.ok(files.length >= 4);
  for (const name of files) {
    const defaults = [...readFileSync(folder + name, "utf8").matchAll(/get\("PORT"\) \?\? (\d+)|PORT \?\? (\d+)/g)]
      .map((m) => m[1] ?? m[2]);
    assert.deepEqual(defaults, [port], `${name} listens on $PORT, else ${port}`);
  }
});
