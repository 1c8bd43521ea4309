// The profile behind bench/README.md: runs the app server (`svc` mode) on Deno with `--cpu-prof`, loads
// `POST /svc/agent/run` with wrk for a few seconds, stops it, and prints the top frames by self time.
//   node bench/profile.ts [seconds=5] [variant=run|403]
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_BODY } from "./app/notes_app.ts";
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
ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "svc-profile-"));
try {
  const db = `file:${join(dir, "keys.db")}`;
  const keysFile = join(dir, "keys.json");
  execFileSync(runtimeCommand("node", "bench/app/setup_keys.ts")[0], ["bench/app/setup_keys.ts", db, keysFile]);
  const keys = JSON.parse(readFileSync(keysFile, "utf8"));
  const [deno, ...args] = runtimeCommand("deno", "bench/app/app_server.ts");
  const server = await startServer([deno, args[0], args[1], "--cpu-prof", `--cpu-prof-dir=${dir}`, ...args.slice(2)]
    .concat("svc", db));
  const auth = `Bearer ${variant === "403" ? keys.readOnly : keys.full}`;
  const result = await runWrk(`${server.url}/svc/agent/run`, {
    script: "post.lua",
    env: { BODY: RUN_BODY, AUTH: auth },
    seconds,
  });
  await server.stop();
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (file === undefined) throw new Error("no .cpuprofile written");
  const profile: Profile = JSON.parse(readFileSync(join(dir, file), "utf8"));
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
  console.log(`${variant}: ${Math.round(result.rps)} req/s; ${total} samples; top frames by self time:`);
  for (const [frame, n] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`${(n / total * 100).toFixed(1).padStart(5)}%  ${frame}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
