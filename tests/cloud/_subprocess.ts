// Running the command line (or the binary) as a real subprocess.
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

export const repoRoot: string = fileURLToPath(new URL("../../", import.meta.url));
export const mainScript: string = fileURLToPath(new URL("../../cloud/main.ts", import.meta.url));

/** The command that runs cloud/main.ts under the runtime running this test. */
export function cliCommand(): string[] {
  return "Deno" in globalThis ? [process.execPath, "run", "-A", mainScript] : [process.execPath, mainScript];
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("SVC_") && k !== "NODE_TEST_CONTEXT") env[k] = v;
  }
  return { ...env, NO_COLOR: "1", ...extra };
}

export function start(command: string[], cwd: string, env: Record<string, string> = {}): ChildProcess {
  const [cmd, ...args] = command;
  return spawn(cmd, args, { cwd, env: cleanEnv(env), stdio: ["ignore", "pipe", "pipe"] });
}

export function run(command: string[], cwd: string, env: Record<string, string> = {}): Promise<Finished> {
  const child = start(command, cwd, env);
  return finished(child);
}

export function finished(child: ChildProcess): Promise<Finished> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => stdout += d);
  child.stderr!.on("data", (d) => stderr += d);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts `serve --port 0` and resolves with its base URL once it listens. */
export function serve(
  command: string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; done: Promise<Finished> }> {
  const child = start([...command, "serve", "--port", "0", "--host", "127.0.0.1"], cwd, env);
  const done = finished(child);
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout!.on("data", (d) => {
      seen += d;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(seen);
      if (m) resolve({ child, url: m[1], done });
    });
    done.then((f) => reject(new Error(`serve exited early (${f.code}): ${f.stderr}`)));
  });
}
