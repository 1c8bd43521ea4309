import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MIN_NODE_MAJOR, unsupportedRuntime } from "../../../core/runtime/mod.ts";

test("unsupportedRuntime() refuses Node 20 with one line naming Node 22", () => {
  const line = unsupportedRuntime("@svc/agent-access", { process: { versions: { node: "20.20.2" } } });
  assert.equal(
    line,
    "@svc/agent-access needs Node.js 22 or newer (this is Node.js 20.20.2): install Node.js 22+, or run it with Deno or Bun.",
  );
  assert.equal(MIN_NODE_MAJOR, 22);
});

test("unsupportedRuntime() accepts Node 22 and 24, and Deno and Bun whatever Node version they report", () => {
  assert.equal(unsupportedRuntime("x", { process: { versions: { node: "22.0.0" } } }), null);
  assert.equal(unsupportedRuntime("x", { process: { versions: { node: "24.9.0" } } }), null);
  assert.equal(unsupportedRuntime("x", { Deno: {}, process: { versions: { node: "20.11.1" } } }), null);
  assert.equal(unsupportedRuntime("x", { Bun: {}, process: { versions: { node: "20.0.0" } } }), null);
  assert.equal(unsupportedRuntime("x", {}), null, "a runtime without process (a browser, a worker)");
  assert.equal(unsupportedRuntime("x", globalThis), null, "the runtime running this test is supported");
});

test("package.json asks npm for Node 22 or newer", () => {
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  assert.equal(pkg.engines?.node, `>=${MIN_NODE_MAJOR}`);
});
