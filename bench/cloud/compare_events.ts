// Two checkouts (or more), same run: each serves the cloud (`cloud/main.ts serve` of its own tree, Deno, its own
// fresh `file:` database), wrk sends single `POST /v1/events` to each in turn at each connection count, `rounds`
// times; the best round of each counts, with the server's CPU time per event (user + system, /proc).
//   node bench/cloud/compare_events.ts <seconds> <rounds> <connections,…> <label>=<checkout> ...
// A checkout is a copy of the tree with node_modules linked (see bench/compare.ts); `label=checkout:direct` serves that
// checkout's cloud with `Deno.serve` alone, without the adapter's relay (bench/cloud/direct_server.ts). Bounded: (1 + seconds × rounds ×
// connection counts) per server, 127.0.0.1 only.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BenchProject } from "./project.ts";
import { runtimeCommand, type ServerProcess, startServer } from "../server_process.ts";
import { ensureWrk, runWrk, type WrkResult } from "../wrk.ts";

const [seconds, rounds, connectionList, ...specs] = process.argv.slice(2);
if (specs.length === 0) {
  throw new Error("usage: compare_events.ts <seconds> <rounds> <connections,…> <label>=<checkout> ...");
}
const connections = connectionList.split(",").map(Number);
ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "svc-bench-compare-events-"));
const servers: { label: string; server: ServerProcess; project: BenchProject }[] = [];
try {
  for (const spec of specs) {
    const [label, target] = spec.split("=");
    const [checkout, how] = target.split(":");
    const db = `file:${join(dir, `${label}.db`)}`;
    // Each checkout migrates its own database (an older checkout refuses a newer schema).
    const { benchProject } = await import(pathToFileURL(resolve(checkout, "bench/cloud/project.ts")).href);
    const project: BenchProject = await benchProject(db);
    const command = how === "direct"
      ? runtimeCommand("deno", join(checkout, "bench/cloud/direct_server.ts")).concat(db)
      : runtimeCommand("deno", join(checkout, "cloud/main.ts"))
        .concat("serve", "--port", "0", "--host", "127.0.0.1", "--db", db, "--rate-limit-project", "0");
    servers.push({ label, project, server: await startServer(command, /listening on http:\/\/[^:]+:(\d+)/) });
  }
  let n = 0;
  const load = (s: (typeof servers)[number], time: number, c: number) =>
    runWrk(`${s.server.url}/v1/events`, {
      script: "events.lua",
      env: { SECRET: s.project.sdkSecret, PROJECT: s.project.projectId, AGENTS: "4", BATCH: "1", PREFIX: `r${n++}` },
      seconds: time,
      connections: c,
    });
  for (const s of servers) await load(s, 1, 50);
  const best = new Map<string, WrkResult>();
  const cpu = new Map<string, number>();
  for (let round = 0; round < Number(rounds); round++) {
    for (const c of connections) {
      for (const s of servers) {
        const key = `${s.label} c=${c}`;
        const before = s.server.cpuSeconds();
        const result = await load(s, Number(seconds), c);
        if (result.non2xx > 0) throw new Error(`${key}: ${result.non2xx} non-2xx`);
        const perEvent = (s.server.cpuSeconds() - before) / (result.rps * Number(seconds)) * 1e6;
        console.error(
          `round ${round + 1} ${key}: ${Math.round(result.rps)}/s p50 ${result.p50.toFixed(3)} ms, ${
            perEvent.toFixed(1)
          } µs`,
        );
        if ((best.get(key)?.rps ?? 0) < result.rps) best.set(key, result);
        cpu.set(key, Math.min(cpu.get(key) ?? Infinity, perEvent));
      }
    }
  }
  for (const c of connections) {
    const first = `${servers[0].label} c=${c}`;
    for (const { label } of servers) {
      const key = `${label} c=${c}`;
      const r = best.get(key)!;
      const us = cpu.get(key)!;
      console.log(
        `${key}: ${Math.round(r.rps)} events/s (${(r.rps / best.get(first)!.rps).toFixed(2)}×), p50 ${
          r.p50.toFixed(3)
        } ms, ` +
          `p99 ${r.p99} ms; server CPU ${us.toFixed(1)} µs/event (${(us / cpu.get(first)!).toFixed(2)}×)`,
      );
    }
  }
} finally {
  await Promise.all(servers.map((s) => s.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
