// Builds the npm package in dist/npm from the same source JSR publishes:
// ESM JavaScript and .d.ts files compiled by TypeScript's own `tsc`
// (`rewriteRelativeImportExtensions` turns `./x.ts` imports into `./x.js`),
// a package.json generated from deno.json (name, version, one `exports`
// entry per JSR export) and package.json (runtime and peer dependencies),
// the `svc-cloud` command line with a node shebang, README.md, LICENSE, SECURITY.md and docs/ (the README links
// there, so its links work inside the installed package too).
// Only what the exports reach is compiled: no tests, bench, examples or scripts.
//
//   npm run build:npm            builds dist/npm
//   npm run build:npm -- --pack  also writes the tarball into dist/ and prints its path
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";

const OUT = "dist/npm";
const BIN = "cloud/main.ts";

const deno = JSON.parse(readFileSync("deno.json", "utf8"));
const dev = JSON.parse(readFileSync("package.json", "utf8"));
const exportsMap = deno.exports as Record<string, string>;

/** `./core/x.ts` → `./core/x.js` (or `.d.ts`). */
function built(source: string, extension: ".js" | ".d.ts"): string {
  return source.replace(/\.ts$/, extension);
}

/** Runs a command with inherited output; exits with its status if it fails. */
function run(command: string, args: string[], options: { cwd?: string; capture?: boolean } = {}): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    stdio: options.capture ? ["ignore", "pipe", "inherit"] : "inherit",
    encoding: "utf8",
    shell: process.platform === "win32",
  });
  if (result.status !== 0) {
    console.error(`build_npm: ${command} ${args.join(" ")} failed`);
    process.exit(result.status ?? 1);
  }
  return result.stdout ?? "";
}

rmSync(OUT, { recursive: true, force: true });
run(join("node_modules", ".bin", "tsc"), [
  ...Object.values(exportsMap),
  BIN,
  "core/db/checkpoint_worker.ts", // started as a worker thread, not imported: no export reaches it
  ...["--outDir", OUT, "--rootDir", "."],
  ...["--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2023"],
  ...["--lib", "es2024,dom,dom.iterable,dom.asynciterable", "--types", "node"],
  ...["--declaration", "--rewriteRelativeImportExtensions", "--strict", "--skipLibCheck"],
]);

const bin = join(OUT, built(BIN, ".js"));
writeFileSync(bin, "#!/usr/bin/env node\n" + readFileSync(bin, "utf8"));
chmodSync(bin, 0o755);
for (const file of ["README.md", "LICENSE", "SECURITY.md"]) copyFileSync(file, join(OUT, file));
cpSync("docs", join(OUT, "docs"), { recursive: true });

const manifest = {
  name: deno.name,
  version: deno.version,
  description:
    "Give software agents scoped access to your app: per-user agent keys, intents, violations and an event " +
    "inbox, on Deno, Bun and Node 22+.",
  license: deno.license,
  type: "module",
  exports: Object.fromEntries(
    Object.entries(exportsMap).map(([name, source]) => [
      name,
      { types: built(source, ".d.ts"), default: built(source, ".js") },
    ]),
  ),
  bin: { "svc-cloud": built(BIN, ".js") },
  engines: dev.engines, // { node: ">=22" }, as the repository's own package.json
  dependencies: dev.dependencies,
  peerDependencies: dev.peerDependencies,
  peerDependenciesMeta: dev.peerDependenciesMeta,
};
writeFileSync(join(OUT, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`build_npm: ${deno.name}@${deno.version} in ${OUT}`);

if (process.argv.includes("--pack")) {
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", ".."], { cwd: OUT, capture: true }));
  console.log(join("dist", packed[0].filename));
}
