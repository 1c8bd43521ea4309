import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  checkImportGraph,
  isCloudFeature,
  longestChain,
  readSources,
  relativeImports,
  roomOf,
} from "./import_graph.ts";
import { CLOUD_LAYERS } from "./cloud_layers.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** A tree of sources from paths and the specifiers each imports. */
function tree(files: Record<string, string[]>): Map<string, string> {
  return new Map(
    Object.entries(files).map(([path, imports]) => [
      path,
      imports.map((s, i) => `import { x${i} } from "${s}";`).join("\n") + "\nexport const here = 1;\n",
    ]),
  );
}

/** Two clean core rooms and an entry, the base every planted violation is added to. */
const CLEAN = {
  "mod.ts": ["./core/b/mod.ts"],
  "core/a/mod.ts": ["./inner.ts"],
  "core/a/inner.ts": [],
  "core/b/mod.ts": ["./user.ts"],
  "core/b/user.ts": ["../a/mod.ts"],
  "core/b/nested/mod.ts": ["./deep.ts"],
  "core/b/nested/deep.ts": ["../../a/mod.ts"],
  "adapters/deno.ts": ["../core/b/mod.ts", "./_helper.ts"],
  "adapters/_helper.ts": [],
};

describe("the import graph", () => {
  test("the package's own tree keeps every rule, cloud/ included", () => {
    const report = checkImportGraph(readSources(REPO));
    assert.ok(report.rooms.includes("core/app/storage"), "core/app/storage is a room of its own");
    assert.ok(report.rooms.includes("adapters/deno"));
    for (const feature of ["audit", "inbox", "keys", "operators", "projects", "violations", "dashboard", "routes"]) {
      assert.ok(report.rooms.includes(`cloud/${feature}`), `cloud/${feature} is a room`);
    }
    assert.ok(report.edges.length > 200, `${report.edges.length} imports read`);
    assert.deepEqual(report.failures.map((f) => f.message), []);
    assert.deepEqual(report.reported.map((f) => f.message), []);
  });

  test("a cycle planted between two of the cloud's features fails", () => {
    const sources = readSources(REPO);
    sources.set(
      "cloud/audit/planted.ts",
      `import type { KeyService } from "../keys/mod.ts";\nexport type { KeyService };\n`,
    );
    const report = checkImportGraph(sources);
    assert.ok(report.failures.some((f) => f.rule === "cycle" && /cloud\/audit/.test(f.message)));
  });

  test("an import between two cloud features that the layering does not declare fails (keys → inbox)", () => {
    const sources = readSources(REPO);
    sources.set(
      "cloud/keys/planted.ts",
      `import type { InboxService } from "../inbox/mod.ts";\nexport type { InboxService };\n`,
    );
    const report = checkImportGraph(sources);
    assert.deepEqual(report.failures.map((f) => `${f.rule}: ${f.message}`), [
      "cloud layer: cloud/keys/planted.ts:1 imports cloud/inbox/mod.ts: cloud/keys may not import cloud/inbox " +
      "(the cloud's layering, cloud_layers.ts)",
    ]);
  });

  test("a cloud feature folder missing from the layering fails", () => {
    const sources = readSources(REPO);
    sources.set(
      "cloud/planted/mod.ts",
      `import type { AuditActor } from "../audit/mod.ts";\nexport type { AuditActor };\n`,
    );
    const report = checkImportGraph(sources);
    assert.ok(report.failures.some((f) => f.rule === "cloud layer" && /cloud\/planted is not in/.test(f.message)));
  });

  test("the declared layering names every cloud feature folder and stands on 5 floors, as the imports do", () => {
    const report = checkImportGraph(readSources(REPO));
    const features = report.rooms.filter(isCloudFeature).map((room) => room.slice("cloud/".length)).sort();
    assert.deepEqual(Object.keys(CLOUD_LAYERS).sort(), features);
    const declared = new Map(
      Object.entries(CLOUD_LAYERS).map(([from, to]) => [`cloud/${from}`, new Set(to.map((t) => `cloud/${t}`))]),
    );
    assert.equal(longestChain(declared).length, 5, longestChain(declared).join(" -> "));
    // Measured from the imports: the cloud's features 5 floors deep (7 before cloud/feed), the whole chain from
    // cloud/ down through core 10 (12 before).
    assert.deepEqual(longestChain(report.roomImports, isCloudFeature).length, 5);
    const whole = longestChain(report.roomImports);
    assert.ok(whole.length <= 10, whole.join(" -> "));
  });

  test("a chain's length counts the rooms on it, and a filter leaves rooms out", () => {
    const imports = new Map([["a", new Set(["b", "c"])], ["b", new Set(["c"])], ["c", new Set<string>()]]);
    assert.deepEqual(longestChain(imports), ["a", "b", "c"]);
    assert.deepEqual(longestChain(imports, (room) => room !== "b"), ["a", "c"]);
  });

  test("the dashboard going around the cloud's door fails", () => {
    const sources = readSources(REPO);
    sources.set(
      "cloud/dashboard/planted.ts",
      `import type { CloudDeps } from "../cloud_services.ts";\nexport type { CloudDeps };\n`,
    );
    const report = checkImportGraph(sources);
    assert.ok(report.failures.some((f) => f.rule === "door" && f.message.startsWith("cloud/dashboard/planted.ts:1")));
  });

  test("a door with export * fails (named door)", () => {
    const sources = tree(CLEAN);
    sources.set("core/a/mod.ts", `export * from "./inner.ts";\n`);
    const report = checkImportGraph(sources);
    assert.deepEqual(report.failures.map((f) => f.rule), ["named door"]);
  });

  test("a door that names what its own files declare passes", () => {
    const sources = tree(CLEAN);
    sources.set("core/a/mod.ts", `export { here } from "./inner.ts";\nexport type { Shape } from "./inner.ts";\n`);
    sources.set("core/a/inner.ts", `export const here = 1;\nexport interface Shape {\n  x: number;\n}\n`);
    assert.deepEqual(checkImportGraph(sources).failures, []);
  });

  test("a door re-exporting another room's symbol fails (owner), directly or through one of its files", () => {
    const direct = tree(CLEAN);
    direct.set("core/b/mod.ts", `export { here } from "../a/mod.ts";\n`);
    assert.deepEqual(checkImportGraph(direct).failures.map((f) => f.rule), ["owner"]);
    const through = tree(CLEAN);
    through.set("core/b/mod.ts", `export { here } from "./user.ts";\n`);
    through.set("core/b/user.ts", `import { here } from "../a/mod.ts";\nexport { here };\n`);
    const report = checkImportGraph(through);
    assert.deepEqual(report.failures.map((f) => f.rule), ["owner"]);
    assert.match(report.failures[0].message, /exports here from core\/b\/user\.ts/);
  });

  test("the package's public doors may gather from many rooms", () => {
    const sources = tree(CLEAN);
    sources.set("cloud/mod.ts", `export { here } from "../core/a/mod.ts";\n`);
    assert.deepEqual(checkImportGraph(sources).failures, []);
  });

  test("a clean tree passes", () => {
    const report = checkImportGraph(tree(CLEAN));
    assert.deepEqual(report.failures, []);
    assert.deepEqual(report.rooms, ["core/a", "core/b", "core/b/nested"]);
  });

  test("a file that imports another room's inner file fails (door)", () => {
    const report = checkImportGraph(tree({ ...CLEAN, "core/b/user.ts": ["../a/inner.ts"] }));
    assert.equal(report.failures.length, 1);
    assert.equal(report.failures[0].rule, "door");
    assert.match(report.failures[0].message, /core\/b\/user\.ts:1 imports core\/a\/inner\.ts/);
  });

  test("an entry outside every room goes through doors too", () => {
    const report = checkImportGraph(tree({ ...CLEAN, "mod.ts": ["./core/a/inner.ts"] }));
    assert.deepEqual(report.failures.map((f) => f.rule), ["door"]);
  });

  test("a room that imports its sub-room's inner file fails: a sub-room is a room of its own", () => {
    const report = checkImportGraph(tree({ ...CLEAN, "core/b/user.ts": ["../a/mod.ts", "./nested/deep.ts"] }));
    assert.deepEqual(report.failures.map((f) => f.rule), ["door"]);
  });

  test("core importing adapters/ or cloud/ fails (layer)", () => {
    const report = checkImportGraph(tree({
      ...CLEAN,
      "core/a/inner.ts": ["../../adapters/_helper.ts", "../../cloud/mod.ts"],
      "cloud/mod.ts": [],
    }));
    assert.deepEqual(report.failures.map((f) => f.rule), ["layer", "layer"]);
  });

  test("two rooms that import each other fail (cycle), even through doors", () => {
    const report = checkImportGraph(tree({ ...CLEAN, "core/a/inner.ts": ["../b/mod.ts"] }));
    assert.equal(report.failures.length, 1);
    assert.equal(report.failures[0].rule, "cycle");
    assert.match(report.failures[0].message, /core\/a -> core\/b .*core\/b -> core\/a/);
  });

  test("a cycle through three rooms fails", () => {
    const report = checkImportGraph(tree({ ...CLEAN, "core/a/inner.ts": ["../b/nested/mod.ts"] }));
    assert.deepEqual(report.failures.map((f) => f.rule), ["cycle"]);
  });

  test("a cloud file going around a door is reported only while the cloud flag is set", () => {
    const files = tree({ ...CLEAN, "cloud/mod.ts": ["./routes.ts"], "cloud/routes.ts": ["../core/a/inner.ts"] });
    const reportOnly = checkImportGraph(files, { cloudReportOnly: true });
    assert.deepEqual(reportOnly.failures, []);
    assert.deepEqual(reportOnly.reported.map((f) => f.rule), ["door"]);
    const enforced = checkImportGraph(files, { cloudReportOnly: false });
    assert.deepEqual(enforced.failures.map((f) => f.rule), ["door"]);
  });

  test("a violation planted in the package's own tree fails", () => {
    const sources = readSources(REPO);
    sources.set("core/keys/planted.ts", `import { createSvc } from "../app/create_svc.ts";\nexport { createSvc };\n`);
    const report = checkImportGraph(sources);
    assert.ok(report.failures.some((f) => f.rule === "door" && f.message.startsWith("core/keys/planted.ts:1")));
  });

  test("a violation planted in a tree on disk fails", () => {
    const dir = tempDir("svc-graph-");
    try {
      for (const [path, source] of tree({ ...CLEAN, "core/b/user.ts": ["../a/inner.ts"] })) {
        mkdirSync(join(dir.path, dirname(path)), { recursive: true });
        writeFileSync(dir.file(path), source);
      }
      const report = checkImportGraph(readSources(dir.path));
      assert.deepEqual(report.failures.map((f) => f.rule), ["door"]);
    } finally {
      dir.remove();
    }
  });

  test("imports are read from import, export, side-effect and dynamic forms, not from comments", () => {
    const source = [
      `/**`,
      ` * import { a } from "./in_comment.ts";`,
      ` */`,
      `// import { b } from "./line_comment.ts";`,
      `import {`,
      `  c,`,
      `} from "./multi_line.ts";`,
      `export * from "./re_export.ts";`,
      `import "./side_effect.ts";`,
      `const d = await import("./dynamic.ts");`,
      `import { z } from "zod";`,
    ].join("\n");
    assert.deepEqual(relativeImports(source).map((i) => `${i.specifier}@${i.line}`).sort(), [
      "./dynamic.ts@10",
      "./multi_line.ts@7",
      "./re_export.ts@8",
      "./side_effect.ts@9",
    ]);
  });

  test("a file's room is the nearest folder holding a mod.ts, not the root", () => {
    const files = new Set(tree(CLEAN).keys());
    assert.equal(roomOf("core/b/nested/deep.ts", files), "core/b/nested");
    assert.equal(roomOf("core/b/user.ts", files), "core/b");
    assert.equal(roomOf("adapters/deno.ts", files), null);
    assert.equal(roomOf("mod.ts", files), null);
  });
});
