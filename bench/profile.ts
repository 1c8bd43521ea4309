// The profile behind bench/README.md: runs the app server (`svc` mode, through the adapter) on Deno or Node
// with `--cpu-prof`, loads `POST /svc/agent/run` with wrk for a few seconds, stops it, and prints the top
// frames by self time. Variant `events`: the cloud (`cloud/main.ts serve`, `file:` db) under single
// `POST /v1/events` at `connections` (default 8), as `npm run bench -- --only=events` loads it.
//   node bench/profile.ts [seconds=5] [variant=run|403|401|events] [runtime=deno|node] [connections]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_BODY } from "./app/notes_app.ts";
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
const runtime = process.argv[4] === "node" ? "node" : "deno";
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
    const server = await startServer(profiled("bench/app/app_server.ts").concat("svc", db));
    const key = { "403": keys.readOnly, "401": keys.unknown }[variant] ?? keys.full;
    result = await runWrk(`${server.url}/svc/agent/run`, {
      script: "post.lua",
      env: { BODY: RUN_BODY, AUTH: `Bearer ${key}` },
      seconds,
    });
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
  for (const node of profile.nodes) {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url.replace(`file://${ROOT}`, "").replace(/^.*node_modules\//, "npm:");
    const frame = `${functionName || "(anonymous)"} ${where}${where ? `:${lineNumber + 1}` : ""}`;
    byFrame.set(frame, (byFrame.get(frame) ?? 0) + (self.get(node.id) ?? 0));
  }
  const total = profile.samples.length;
  console.log(`${runtime} ${variant}: ${Math.round(result.rps)} req/s; ${total} samples; top frames by self time:`);
  for (const [frame, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`${(n / total * 100).toFixed(1).padStart(5)}%  ${frame}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
