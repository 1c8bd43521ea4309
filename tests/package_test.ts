import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../core/contract/mod.ts";

const deno = JSON.parse(readFileSync("deno.json", "utf8"));
const jsr = JSON.parse(readFileSync("jsr.json", "utf8"));
const pkg = JSON.parse(readFileSync("package.json", "utf8"));

test("deno.json and jsr.json agree on name, version and exports", () => {
  assert.equal(deno.name, "@svc/agent-access");
  assert.equal(jsr.name, deno.name);
  assert.equal(jsr.version, deno.version);
  assert.equal(pkg.version, deno.version);
  assert.deepEqual(jsr.exports, deno.exports);
});

test("every export points at a file that exists", () => {
  for (const [name, path] of Object.entries(deno.exports as Record<string, string>)) {
    assert.ok(existsSync(path), `${name} → ${path}`);
  }
});

test("deno.json's npm imports match package.json's dependencies and optional peers", () => {
  for (const [name, spec] of Object.entries(deno.imports as Record<string, string>)) {
    // A subpath mapping ("pkg/": "npm:/pkg@range/") follows the package's own range.
    const base = name.endsWith("/") ? name.slice(0, -1) : name;
    const range = name.endsWith("/")
      ? spec.replace(`npm:/${base}@`, "").replace(/\/$/, "")
      : spec.replace(`npm:${name}@`, "");
    assert.equal(pkg.dependencies[base] ?? pkg.peerDependencies[base], range, name);
  }
});

test("elysia is an optional peer dependency, needed only by adapters/elysia", () => {
  assert.equal(pkg.dependencies.elysia, undefined);
  assert.equal(pkg.peerDependencies.elysia, deno.imports.elysia.replace("npm:elysia@", ""));
  assert.deepEqual(pkg.peerDependenciesMeta.elysia, { optional: true });
});

test("the version the documents and the MCP endpoint announce is deno.json's", () => {
  assert.equal(PACKAGE_NAME, deno.name);
  assert.equal(PACKAGE_VERSION, deno.version);
});
