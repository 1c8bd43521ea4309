// Two checkouts (or more), same run: each serves the app (bench/app/app_server.ts of its own tree) on one runtime,
// wrk loads POST /svc/agent/run on each in turn, `rounds` times, and the best round of each counts, with the
// server's CPU time per request (user + system, /proc), which other processes' load disturbs less than req/s.
//   node bench/compare.ts <deno|bun|node> <seconds> <rounds> <label>=<checkout>:<bare|svc|hono>[:full|readOnly|unknown] ...
// A checkout is a copy of the tree with node_modules linked, e.g. `git worktree add /tmp/before HEAD~3` plus
// `ln -s $PWD/node_modules /tmp/before/node_modules`. Bounded: (1 + seconds × rounds) per server, 127.0.0.1 only.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RUN_BODY } from "./app/notes_app.ts";
import { ROOT, type Runtime, runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";
import { ensureWrk, runWrk, type WrkResult } from "./wrk.ts";

const [runtime, seconds, rounds, ...specs] = process.argv.slice(2);
if (specs.length === 0) throw new Error("usage: compare.ts <runtime> <seconds> <rounds> <label>=<checkout>:<mode>");
ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-compare-"));
const servers: { label: string; server: ServerProcess; key: string }[] = [];
try {
  const db = `file:${join(dir, "keys.db")}`;
  execFileSync(runtimeCommand("node", "")[0], [`${ROOT}bench/app/setup_keys.ts`, db, join(dir, "keys.json")]);
  const keys = JSON.parse(readFileSync(join(dir, "keys.json"), "utf8"));
  for (const spec of specs) {
    const [label, rest] = spec.split("=");
    const [checkout, mode, key = "full"] = rest.split(":");
    const command = runtimeCommand(runtime as Runtime, join(checkout, "bench/app/app_server.ts")).concat(mode, db);
    servers.push({ label, server: await startServer(command), key: keys[key] });
  }
  const load = (s: (typeof servers)[number], time: number) =>
    runWrk(`${s.server.url}/svc/agent/run`, {
      script: "post.lua",
      env: { BODY: RUN_BODY, AUTH: `Bearer ${s.key}`, ACCEPT: "" },
      seconds: time,
    });
  for (const s of servers) await load(s, 1);
  const best = new Map<string, WrkResult>();
  const cpu = new Map<string, number>();
  for (let round = 0; round < Number(rounds); round++) {
    for (const s of servers) {
      const before = s.server.cpuSeconds();
      const result = await load(s, Number(seconds));
      const perRequest = (s.server.cpuSeconds() - before) / (result.rps * Number(seconds)) * 1e6;
      if ((best.get(s.label)?.rps ?? 0) < result.rps) best.set(s.label, result);
      cpu.set(s.label, Math.min(cpu.get(s.label) ?? Infinity, perRequest));
    }
  }
  const [first] = servers;
  for (const { label } of servers) {
    const r = best.get(label)!;
    const rps = (r.rps / best.get(first.label)!.rps).toFixed(2);
    const us = cpu.get(label)!;
    console.log(
      `${runtime} ${label}: ${Math.round(r.rps)} req/s (${rps}× ${first.label}), p50 ${r.p50} ms; ` +
        `server CPU ${us.toFixed(1)} µs/req (${(us / cpu.get(first.label)!).toFixed(2)}×)`,
    );
  }
} finally {
  await Promise.all(servers.map((s) => s.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
