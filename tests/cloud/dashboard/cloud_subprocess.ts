// The cloud for the browser tests: `cloud/main.ts serve` as a real process of
// Node, Deno or Bun (SVC_DASHBOARD_RUNTIME, default deno) on a fresh database
// file, its setup link read from stdout; `admin create` with the password on stdin.
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const bin = (name: string) => `${root}node_modules/.bin/${name}`;

export type CloudRuntime = "node" | "deno" | "bun";

/** The runtime of the browser tests' full run (SVC_DASHBOARD_RUNTIME, default deno); the others get a short run. */
export const DASHBOARD_RUNTIME = (process.env.SVC_DASHBOARD_RUNTIME ?? "deno") as CloudRuntime;

export function cloudCommand(runtime: CloudRuntime): string[] {
  const main = `${root}cloud/main.ts`;
  if (runtime === "deno") return [bin("deno"), "run", "-A", main];
  if (runtime === "bun") return [bin("bun"), main];
  return [process.execPath, main];
}

export interface ServedCloud {
  url: string;
  setupLink: string;
  /** The process id of the cloud (its peak memory is read from /proc). */
  pid: number;
  stop(): Promise<void>;
}

function env(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("SVC_") && k !== "NODE_TEST_CONTEXT") out[k] = v;
  }
  return { ...out, NO_COLOR: "1" };
}

/** Starts `serve` on a free port; `flags` are more of its options (`--sign-in-wait 600`). */
export function serveCloud(runtime: CloudRuntime, db: string, flags: string[] = []): Promise<ServedCloud> {
  const [cmd, ...args] = cloudCommand(runtime);
  const line = [...args, "serve", "--port", "0", "--host", "127.0.0.1", "--db", db, ...flags];
  const child: ChildProcess = spawn(cmd, line, {
    cwd: root,
    env: env(),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stderr!.on("data", (d) => err += d);
    child.stdout!.on("data", (d) => {
      out += d;
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(out);
      const link = /(http:\/\/127\.0\.0\.1:\d+\/dashboard\/setup\?token=\S+)/.exec(out);
      if (listening && link) {
        resolve({
          url: listening[1],
          setupLink: link[1],
          pid: child.pid!,
          async stop() {
            child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    exited.then(() => reject(new Error(`serve exited early: ${err}`)));
  });
}

/** Runs `admin create` with the password on stdin; resolves with its exit code and output. */
export function adminCreate(
  runtime: CloudRuntime,
  db: string,
  email: string,
  role: string,
  password: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [cmd, ...args] = cloudCommand(runtime);
  const child = spawn(cmd, [...args, "admin", "create", "--email", email, "--role", role, "--json", "--db", db], {
    cwd: root,
    env: env(),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => stdout += d);
  child.stderr.on("data", (d) => stderr += d);
  child.stdin.end(`${password}\n`);
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}
