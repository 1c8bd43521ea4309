// Node releases the package tests run besides the repository's own Node 24: npm's `node@20` (refused in one line) and
// `node@22` (the oldest supported), each installed into a cache folder that lasts between runs. .ci/run installs them
// there with the same command, so a CI run does not download them while a test waits.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { run } from "../fixtures/subprocess.ts";

/** The folder npm's `node@MAJOR` is installed into (`$XDG_CACHE_HOME/svc-agent-access/nodeMAJOR`). */
export function nodeReleaseFolder(major: number): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "svc-agent-access", `node${major}`);
}

/**
 * The `node` of npm's `node@MAJOR`, installed into its cache folder unless already there.
 *
 * @param major The Node major release, for example 22.
 * @returns The path of the `node` command.
 */
export async function nodeRelease(major: number): Promise<string> {
  const folder = nodeReleaseFolder(major);
  const node = join(folder, "node_modules", ".bin", "node");
  if (existsSync(node)) return node;
  // node's install script (it fetches the platform's binary package) reviewed, as in the repository's package.json.
  mkdirSync(folder, { recursive: true });
  const manifest = join(folder, "package.json");
  if (!existsSync(manifest)) writeFileSync(manifest, JSON.stringify({ private: true, allowScripts: { node: true } }));
  const args = ["install", "--prefer-offline", "--no-audit", "--no-fund", "--prefix", folder, `node@${major}`];
  const installed = await run(["npm", ...args], process.cwd());
  if (installed.code !== 0) throw new Error(`npm ${args.join(" ")} failed: ${installed.stderr}`);
  return node;
}
