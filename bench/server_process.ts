// A server in a subprocess: started with its runtime, ready once it prints its
// port, measured through /proc, stopped with SIGTERM (then SIGKILL).
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The repository root. */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url));
const BIN = `${ROOT}node_modules/.bin/`;

/** The runtimes a bench script can run on. */
export type Runtime = "deno" | "bun" | "node";

/**
 * The command that runs a TypeScript file on a runtime (from node_modules/.bin).
 *
 * @param runtime Deno, Bun or Node.
 * @param file A path relative to the repository root.
 * @returns The command and its arguments.
 */
export function runtimeCommand(runtime: Runtime, file: string): string[] {
  if (runtime === "deno") return [`${BIN}deno`, "run", "-A", file];
  if (runtime === "bun") return [`${BIN}bun`, file];
  return [`${BIN}node`, file];
}

/** A running server. */
export interface ServerProcess {
  /** Its process id. */
  pid: number;
  /** Its port on 127.0.0.1. */
  port: number;
  /** `http://127.0.0.1:port`. */
  url: string;
  /** Resident memory, in megabytes. */
  rssMb(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  /** Stops it. */
  stop(): Promise<void>;
}

/**
 * Starts a server and waits until it prints the port it listens on.
 *
 * @param command The command line.
 * @param portPattern How its output names the port (first group).
 * @returns The running server.
 */
export function startServer(command: string[], portPattern = /listening (\d+)/): Promise<ServerProcess> {
  const [cmd, ...args] = command;
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no port after 30 s from ${command.join(" ")}:\n${output}`)), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(error);
    };
    const onData = (data: Buffer) => {
      output += data;
      const port = portPattern.exec(output)?.[1];
      if (port === undefined) return;
      clearTimeout(timer);
      child.stdout!.off("data", onData);
      child.stdout!.resume();
      child.stderr!.resume();
      resolve(server(child, Number(port)));
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", (d) => output += d);
    child.on("exit", (code) => fail(new Error(`${command.join(" ")} exited (${code}):\n${output}`)));
  });
}

function server(child: ChildProcess, port: number): ServerProcess {
  return {
    pid: child.pid!,
    port,
    url: `http://127.0.0.1:${port}`,
    rssMb() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
    },
    cpuSeconds() {
      // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100 Hz).
      const stat = readFileSync(`/proc/${child.pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    stop() {
      if (child.exitCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        const kill = setTimeout(() => child.kill("SIGKILL"), 5000);
        child.removeAllListeners("exit");
        child.on("exit", () => {
          clearTimeout(kill);
          resolve();
        });
        child.kill("SIGTERM");
      });
    },
  };
}
