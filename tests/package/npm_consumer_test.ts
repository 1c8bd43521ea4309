// @slow @serial: packaging (builds dist/npm)
// The npm package as a user gets it: build it, `npm pack`, install the tarball
// into a fresh project, and run a small app importing the published entry
// points on Node 24, Bun and Deno (each as a subprocess, so this file runs on
// Node only), plus the `svc-cloud` command line through npx.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import process from "node:process";
import { CONSUMER_APP } from "../fixtures/consumer_app.ts";
import { repoRoot, run } from "../fixtures/subprocess.ts";
import { runtime } from "../fixtures/runtime.ts";
import { tempDir } from "../fixtures/temp_dir.ts";

const skip = runtime !== "node" && "runs on Node only: it drives every runtime as a subprocess";
const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);
// Node 24, Bun, Deno and tsc from the repository's devDependencies come first on PATH, so the
// `#!/usr/bin/env node` of svc-cloud meets a Node the package supports (22+).
const PATH = `${join(repoRoot, "node_modules", ".bin")}${process.platform === "win32" ? ";" : ":"}${process.env.PATH}`;
const deno = JSON.parse(readFileSync(join(repoRoot, "deno.json"), "utf8"));
const project = tempDir("svc-consumer-");
const installed = join(project.path, "node_modules", "@svc", "agent-access");
after(() => project.remove());

before(async () => {
  if (skip) return;
  const build = await run([process.execPath, "scripts/build_npm.ts", "--pack"], repoRoot, { PATH });
  assert.equal(build.code, 0, build.stderr);
  const tarball = join(repoRoot, build.stdout.trim().split("\n").at(-1)!);
  writeFileSync(project.file("package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(project.file("app.ts"), CONSUMER_APP);
  const install = await run(
    ["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", tarball, "zod", "@types/node"],
    project.path,
    { PATH },
  );
  assert.equal(install.code, 0, install.stderr);
}, { timeout: 300_000 });

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [relative(installed, path)];
  });
}

test(
  "the package holds only the library: JavaScript with declarations, README, LICENSE, SECURITY, docs, package.json",
  {
    skip,
  },
  () => {
    const files = filesUnder(installed);
    assert.ok(files.includes("mod.js") && files.includes("cloud/main.js"));
    for (const file of files) {
      assert.match(
        file,
        /\.(js|d\.ts)$|^(README\.md|LICENSE|SECURITY\.md|package\.json)$|^docs\/[\w.-]+\.(md|png)$/,
        file,
      );
      assert.doesNotMatch(file, /^(tests|bench|examples|scripts)\//, file);
      if (file.endsWith(".js")) assert.ok(files.includes(file.replace(/\.js$/, ".d.ts")), `${file} has types`);
    }
  },
);

test("the README's links to docs/ and SECURITY.md lead to files inside the installed package", { skip }, () => {
  const readme = readFileSync(join(installed, "README.md"), "utf8");
  const linked = [...readme.matchAll(/\]\(((?:docs\/|SECURITY\.md)[^)#]*)/g)].map((m) => m[1]);
  assert.ok(linked.includes("docs/guide.md") && linked.includes("SECURITY.md"), "the README links there");
  for (const path of linked) assert.ok(existsSync(join(installed, path)), `${path} is in the package`);
});

test("its package.json has an export per JSR export, the svc-cloud bin, Node 22+ and elysia as an optional peer", {
  skip,
}, () => {
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8"));
  assert.equal(manifest.name, deno.name);
  assert.equal(manifest.version, deno.version);
  assert.deepEqual(Object.keys(manifest.exports), Object.keys(deno.exports));
  for (const [name, source] of Object.entries(deno.exports as Record<string, string>)) {
    assert.deepEqual(manifest.exports[name], {
      types: source.replace(/\.ts$/, ".d.ts"),
      default: source.replace(/\.ts$/, ".js"),
    });
  }
  assert.deepEqual(manifest.bin, { "svc-cloud": "cloud/main.js" });
  assert.equal(manifest.engines.node, ">=22");
  assert.equal(manifest.dependencies.elysia, undefined);
  assert.deepEqual(manifest.peerDependenciesMeta.elysia, { optional: true });
  assert.equal(existsSync(join(project.path, "node_modules", "elysia")), false, "elysia is not installed");
  assert.match(readFileSync(join(installed, "cloud", "main.js"), "utf8"), /^#!\/usr\/bin\/env node\n/);
});

test("npx svc-cloud --help prints the usage", { skip }, async () => {
  const help = await run(["npx", "svc-cloud", "--help"], project.path, { PATH });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /svc-cloud project create --name NAME/);
});

test("svc-cloud project create --json creates a project in a file database", { skip }, async () => {
  const db = `file:${project.file("svc.db")}`;
  const created = await run(
    ["npx", "svc-cloud", "project", "create", "--name", "x", "--json", "--db", db],
    project.path,
    {
      PATH,
    },
  );
  assert.equal(created.code, 0, created.stderr);
  const { projectId, sdkSecret } = JSON.parse(created.stdout);
  assert.match(projectId, /^prj_/);
  assert.match(sdkSecret, /^svcs_/);
});

test("the consumer app type-checks against the published declarations", { skip }, async () => {
  const checked = await run(
    [
      bin("tsc"),
      "--noEmit",
      ...["--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2023"],
      ...["--lib", "es2024,dom,dom.iterable,dom.asynciterable", "--types", "node", "--skipLibCheck", "app.ts"],
    ],
    project.path,
    { PATH },
  );
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);
});

const commands: Record<string, string[]> = {
  node: [bin("node"), "app.ts"],
  bun: [bin("bun"), "app.ts"],
  deno: [bin("deno"), "run", "-A", "--no-lock", "app.ts"],
};
for (const [name, command] of Object.entries(commands)) {
  test(`an app importing the package, its client, its cloud and adapters/${name} runs on ${name}`, {
    skip,
  }, async () => {
    const db = `file:${project.file(`${name}.db`)}`;
    const created = await run(
      ["npx", "svc-cloud", "project", "create", "--name", name, "--json", "--db", db],
      project.path,
      {
        PATH,
      },
    );
    const { projectId, sdkSecret } = JSON.parse(created.stdout);
    const ran = await run(command, project.path, {
      PATH,
      SVC_DB_URL: db,
      SVC_PROJECT_ID: projectId,
      SVC_SDK_SECRET: sdkSecret,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout.trim().split("\n").at(-1)!), {
      runtime: name,
      urls: ["http://127.0.0.1:PORT", "http://127.0.0.1:PORT"],
      result: { id: "alice/hello" },
      emitted: { duplicate: false, inboxId: "number" },
      types: ["note.created"],
      acknowledged: 1,
      home: "my own app",
    });
  });
}
