import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readSources } from "./import_graph.ts";
import { moduleState, platformReads, PROCESS_STATE } from "./platform_reads.ts";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

describe("direct platform reads in library code", () => {
  test("core/ and cloud/ read the clock, randomness and fetch only through core/platform/platform.ts", () => {
    const reads = platformReads(readSources(REPO, ["core", "cloud"]));
    assert.deepEqual(reads.map((r) => `${r.where} ${r.read}`), []);
  });

  test("each kind of read planted in a library file is found; comments, conversions and the CLI are not", () => {
    const planted = new Map([
      [
        "core/a/x.ts",
        [
          "const a = Date.now();",
          "const b = new Date().toISOString();",
          "const c = performance.now();",
          "const d = Math.random();",
          "const e = crypto.getRandomValues(new Uint8Array(4));",
          "const f = crypto.randomUUID();",
          "const g = ulid();",
          "const h = await fetch(url);",
          "const i = options.now ?? Date.now;",
          "const j = new Date(0); // Date.now() in a comment",
          "/** Default `Date.now()`, `fetch(x)`. */",
          "const k = await this.#fetch(url), l = options.fetch(url), m = ulid(at);",
        ].join("\n"),
      ],
      ["cloud/cli/y.ts", "const a = Date.now();"],
      ["cloud/main.ts", "const a = Math.random();"],
      ["core/platform/platform.ts", "const a = Date.now();"],
      ["adapters/node.ts", "const a = Date.now();"],
    ]);
    assert.deepEqual(platformReads(planted).map((r) => `${r.where} ${r.read}`), [
      "core/a/x.ts:1 Date.now",
      "core/a/x.ts:2 new Date()",
      "core/a/x.ts:3 performance.now",
      "core/a/x.ts:4 Math.random",
      "core/a/x.ts:5 crypto.getRandomValues",
      "core/a/x.ts:6 crypto.randomUUID",
      "core/a/x.ts:7 ulid() without a seed time",
      "core/a/x.ts:8 the global fetch",
      "core/a/x.ts:9 Date.now",
    ]);
  });

  test("no module-level mutable state in core/ and cloud/ but the process's own, each with its reason", () => {
    const found = moduleState(readSources(REPO, ["core", "cloud"]));
    assert.deepEqual(found.filter((s) => !(s in PROCESS_STATE)), []);
    assert.deepEqual(Object.keys(PROCESS_STATE).filter((s) => !found.includes(s)), [], "a listed one that is gone");
  });

  test("a module-level let, Map or Set planted in a library file is found; constants and WeakMaps are not", () => {
    const planted = new Map([
      [
        "cloud/x/y.ts",
        [
          "let count = 0;",
          "export let shared: string[] = [];",
          "const seen = new Map<string, number>();",
          "const pending = new Set<string>();",
          'const FIELDS = new Set(["a"]);',
          "const owners = new WeakMap<object, number>();",
          "function f() {",
          "  let local = 0;",
          "  const inner = new Map();",
          "}",
        ].join("\n"),
      ],
      ["cloud/cli/z.ts", "let count = 0;"],
    ]);
    assert.deepEqual(moduleState(planted), [
      "cloud/x/y.ts count",
      "cloud/x/y.ts shared",
      "cloud/x/y.ts seen",
      "cloud/x/y.ts pending",
    ]);
  });
});
