// wrk: installing it when missing, running it against 127.0.0.1, reading its numbers.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** What one wrk run measured. */
export interface WrkResult {
  /** Requests per second. */
  rps: number;
  /** Median latency, in milliseconds. */
  p50: number;
  /** 99th percentile latency, in milliseconds. */
  p99: number;
  /** Answers outside 2xx/3xx. */
  non2xx: number;
  /** Socket errors (connect, read, write, timeout). */
  errors: number;
}

/** Options of {@linkcode runWrk}. */
export interface WrkOptions {
  /** A Lua script under bench/wrk/. */
  script?: string;
  /** Environment for the script (BODY, AUTH, …). */
  env?: Record<string, string>;
  /** Seconds. */
  seconds: number;
  /** Open connections. Default 50. */
  connections?: number;
}

/** Makes sure `wrk` is on PATH, installing it with apt-get (or brew) when it is not. */
export function ensureWrk(): void {
  if (spawnSync("wrk", ["--version"]).error === undefined) return;
  console.error("wrk is missing: installing it");
  const root = process.getuid?.() === 0;
  const sudo = root ? [] : ["sudo", "-n"];
  const attempts = [
    [...sudo, "apt-get", "update", "-qq"],
    [...sudo, "apt-get", "install", "-y", "-qq", "wrk"],
  ];
  if (spawnSync("apt-get", ["--version"]).error === undefined) {
    for (const [cmd, ...args] of attempts) spawnSync(cmd, args, { stdio: "inherit" });
  } else if (spawnSync("brew", ["--version"]).error === undefined) {
    spawnSync("brew", ["install", "wrk"], { stdio: "inherit" });
  }
  if (spawnSync("wrk", ["--version"]).error !== undefined) {
    throw new Error("wrk is not installed and could not be installed: install it (apt-get install wrk) and rerun");
  }
}

/**
 * Runs wrk once (one thread) and parses its report.
 *
 * @param url The target, on 127.0.0.1.
 * @param options Script, environment, duration and connections.
 * @returns Requests per second and latencies.
 */
export function runWrk(url: string, options: WrkOptions): Promise<WrkResult> {
  const args = [
    "-t1",
    `-c${options.connections ?? 50}`,
    `-d${Math.max(1, Math.round(options.seconds))}s`,
    "--latency",
    "--timeout",
    "10s",
  ];
  if (options.script) args.push("-s", fileURLToPath(new URL(`./wrk/${options.script}`, import.meta.url)));
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn("wrk", args, { env: { ...process.env, ...options.env } });
    // wrk stops itself after -d; this bounds a run that hangs anyway (a server that never answers).
    const bound = setTimeout(() => child.kill("SIGKILL"), (options.seconds + 30) * 1000);
    let out = "";
    child.stdout.on("data", (d) => out += d);
    child.stderr.on("data", (d) => out += d);
    child.on("error", reject);
    child.on("close", () => {
      clearTimeout(bound);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      if (!Number.isFinite(rps)) return reject(new Error(`wrk gave no result:\n${out}`));
      const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      resolve({
        rps,
        p50: latency(out, "50%"),
        p99: latency(out, "99%"),
        non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
        errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      });
    });
  });
}

function latency(out: string, percentile: string): number {
  const match = new RegExp(`^\\s+${percentile}\\s+([\\d.]+)(us|ms|s)\\s*$`, "m").exec(out);
  if (!match) return NaN;
  const scale = { us: 0.001, ms: 1, s: 1000 }[match[2] as "us" | "ms" | "s"];
  return Number(match[1]) * scale;
}
