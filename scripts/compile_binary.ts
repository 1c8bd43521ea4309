// Builds dist/svc-cloud, the cloud's command line as one executable, with
// `bun build --compile`. Run by `npm run compile` (bun cloud/compile.ts).
//
// libsql loads its native module with a dynamic `require(\`@libsql/${target}\`)`
// that the bundler cannot follow. The plugin below rewrites it into a static
// require of this platform's `.node` file, which Bun then embeds, so the binary
// runs where no node_modules exist.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import process from "node:process";

declare const Bun: {
  build(config: Record<string, unknown>): Promise<{ success: boolean; logs: unknown[] }>;
};

const require = createRequire(import.meta.url);
const { currentTarget } = require("@neon-rs/load");
const { familySync, GLIBC } = require("detect-libc");

/** The @libsql native package for this machine, with libsql's own Bun/glibc correction. */
function nativePackage(): string {
  let target: string = currentTarget();
  if (familySync() === GLIBC) target = target.replace(/-musl$/, "-gnu");
  return `@libsql/${target}`;
}

const native = nativePackage();
const nativeFile = require.resolve(`${native}/index.node`);
if (!existsSync(nativeFile)) throw new Error(`libsql's native module ${native} is not installed`);

const staticNativeRequire = {
  name: "libsql-static-native-require",
  setup(build: { onLoad(options: { filter: RegExp }, load: (args: { path: string }) => Promise<unknown>): void }) {
    build.onLoad({ filter: /[\\/]libsql[\\/]index\.js$/ }, async ({ path }) => {
      const source = await (await import("node:fs/promises")).readFile(path, "utf8");
      const rewritten = source.replace(
        /function requireNative\(\) \{[\s\S]*?\n\}\n/,
        `function requireNative() {\n  return require(${JSON.stringify(nativeFile)});\n}\n`,
      );
      if (rewritten === source) throw new Error("libsql's requireNative() changed shape: update cloud/compile.ts");
      return { contents: rewritten, loader: "js" };
    });
  },
};

const outfile = process.argv[2] ?? "dist/svc-cloud";
const result = await Bun.build({
  // The WAL checkpoints' worker thread (core/db/native_executor.ts finds it at this path inside the binary).
  entrypoints: ["cloud/main.ts", "core/db/checkpoint_worker.ts"],
  compile: { outfile },
  minify: true,
  plugins: [staticNativeRequire],
});
if (!result.success) {
  console.error(result.logs);
  process.exit(1);
}
console.log(`built ${outfile} (libsql native module: ${native})`);
