// The profile behind bench/README.md: runs the app server (`svc` mode, through the adapter; variant `hono`: the
// careful peer, bench/peers/hono_peer.ts; `quiet`: the run with `activity: false`; `direct`: the toolkit on
// `Deno.serve` directly, without the adapter; `bare`: the runtime's own server; `bare-relay`: the same handler through
// the adapter with `webSockets: true`, on Deno the relay alone) on Deno, Bun or
// Node with `--cpu-prof`, loads `POST /svc/agent/run` with wrk for a few seconds (variant `mcp`: the same run as an
// MCP `tools/call` on `POST /svc/mcp`), stops it, and prints the top frames by self time. Variant `events`: the cloud (`cloud/main.ts serve`, `file:` db) under single
// `POST /v1/events` at `connections` (default 8), as `npm run bench -- --only=events` loads it.
//   node bench/profile.ts [seconds=5] [variant=run|mcp|quiet|403|401|hono|direct|bare|bare-relay|events] [runtime=deno|bun|node] [connections]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MCP_CALL_BODY, RUN_BODY } from "./app/notes_app.ts";
import { benchProject } from "./cloud/project.ts";
import { ROOT, runtimeCommand, startServer } from "./server_process.ts";
import { ensureWrk, runWrk } from "./wrk.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
}

const seconds = Number(process.argv[2] ?? 5);
const variant = process.argv[3] ?? "run";
const runtime = process.argv[4] === "node" ? "node" : process.argv[4] === "bun" ? "bun" : "deno";
const connections = Number(process.argv[5] ?? 8);
ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "svc-profile-"));
try {
  const flags = ["--cpu-prof", `--cpu-prof-dir=${dir}`];
  const profiled = (file: string) => {
    const [bin, ...args] = runtimeCommand(runtime, file);
    return runtime === "deno" ? [bin, args[0], args[1], ...flags, ...args.slice(2)] : [bin, ...flags, ...args];
  };
  let result;
  let cpuUs = 0; // server CPU (user + system, all threads) µs a request while loaded
  if (variant === "events") {
    const db = `file:${join(dir, "cloud.db")}`;
    const project = await benchProject(db);
    const server = await startServer(
      profiled("cloud/main.ts").concat(
        ["serve", "--port", "0", "--host", "127.0.0.1", "--db", db, "--rate-limit-project", "0"],
      ),
      /listening on http:\/\/[^:]+:(\d+)/,
    );
    const env = { SECRET: project.sdkSecret, PROJECT: project.projectId, AGENTS: "4", BATCH: "1" };
    await runWrk(`${server.url}/v1/events`, { script: "events.lua", env: { ...env, PREFIX: "warm" }, seconds: 1 });
    result = await runWrk(`${server.url}/v1/events`, {
      script: "events.lua",
      env: { ...env, PREFIX: "profiled" },
      seconds,
      connections,
    });
    await server.stop();
  } else {
    const db = `file:${join(dir, "keys.db")}`;
    const keysFile = join(dir, "keys.json");
    execFileSync(runtimeCommand("node", "bench/app/setup_keys.ts")[0], ["bench/app/setup_keys.ts", db, keysFile]);
    const keys = JSON.parse(readFileSync(keysFile, "utf8"));
    const modes: Record<string, string> = {
      hono: "hono",
      quiet: "svc-quiet",
      direct: "svc-direct",
      bare: "bare",
      "bare-relay": "bare-relay",
    };
    const mode = modes[variant] ?? "svc";
    const server = await startServer(profiled("bench/app/app_server.ts").concat(mode, db));
    const mcp = variant === "mcp";
    const url = `${server.url}${mcp ? "/svc/mcp" : "/svc/agent/run"}`;
    const load = (key: string): Record<string, string> =>
      mcp
        ? { BODY: MCP_CALL_BODY, AUTH: `Bearer ${key}`, ACCEPT: "application/json, text/event-stream" }
        : { BODY: RUN_BODY, AUTH: `Bearer ${key}` };
    await runWrk(url, { script: "post.lua", env: load(keys.full), seconds: 1 });
    const key = { "403": keys.readOnly, "401": keys.unknown }[variant] ?? keys.full;
    const cpuBefore = server.cpuSeconds();
    result = await runWrk(url, { script: "post.lua", env: load(key), seconds });
    cpuUs = (server.cpuSeconds() - cpuBefore) * 1e6 / (result.rps * seconds);
    await server.stop();
  }
  // Node writes its profile on exit, a moment after the signal.
  for (let i = 0; i < 50 && !readdirSync(dir).some((f) => f.endsWith(".cpuprofile")); i++) {
    await new Promise((r) => setTimeout(r, 100));
  }
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error("no .cpuprofile written");
  const text = readFileSync(join(dir, file), "utf8");
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, text); // for a closer look (inclusive time)
  const profile: Profile = JSON.parse(text);
  const self = new Map<number, number>();
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + 1);
  const byFrame = new Map<string, number>();
  const byPart = new Map<string, number>();
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(`file://${ROOT}`, "").replace(/^.*node_modules\//, "npm:");
    const frame = `${functionName || "(anonymous)"} ${where}${where ? `:${lineNumber + 1}` : ""}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + (self.get(node.id) ?? 0));
    byPart.set(partOf(functionName, where), (byPart.get(partOf(functionName, where)) ?? 0) + (self.get(node.id) ?? 0));
  }
  const total = profile.samples.length;
  const busy = total - (byPart.get("idle") ?? 0);
  console.log(`${runtime} ${variant}: ${Math.round(result.rps)} req/s, ${cpuUs.toFixed(1)} µs of server CPU a request`);
  console.log(`by part (share of the main thread's busy samples, ${busy} of ${total}):`);
  for (const [part, n] of [...byPart].filter(([p]) => p !== "idle").sort((a, b) => b[1] - a[1])) {
    console.log(`${(n / busy * 100).toFixed(1).padStart(5)}%  ${part}`);
  }
  console.log("top frames by self time:");
  for (const [frame, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(n / total * 100).toFixed(1).padStart(5)}%  ${frame}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The part of the stack a frame belongs to, for the per-part shares. */
function partOf(name: string, where: string): string {
  if (name === "(idle)") return "idle";
  if (name === "(garbage collector)") return "gc";
  if (name === "(program)" || name === "(root)") return "native (program)";
  if (/^op_(read|write|net_|readv|writev|tcp)/.test(name) || name === "read" || name === "write") {
    return "socket reads and writes";
  }
  if (where.startsWith("npm:")) return where.slice(4).split("/").slice(0, where.startsWith("npm:@") ? 2 : 1).join("/");
  if (where.startsWith("adapters/")) return "adapters/";
  if (where.startsWith("core/")) return `core/${where.split("/")[1]}`;
  if (where.startsWith("bench/")) return "bench/ (the peer, the bare server)";
  if (where.startsWith("ext:deno_http") || where.startsWith("node:_http") || where.startsWith("node:http")) {
    return "the runtime's HTTP server";
  }
  if (where === "") return name === "digest" ? "native crypto.subtle.digest" : "native (other builtins)";
  return `runtime (${where.split(/[/:]/).filter(Boolean).slice(0, 2).join(":")})`;
}
