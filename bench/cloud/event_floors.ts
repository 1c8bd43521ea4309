// Where a single event's server CPU goes over HTTP, in one run: the same wrk load (`events.lua`, single events) on
// `http` (the Deno adapter's server reading the body and answering, bench/cloud/event_floor_server.ts), `defer` (the
// same answered after the turn's I/O, as a group commit answers, nothing stored), `raw` (the same plus a minimal group
// commit on the `libsql` binding: one prepared INSERT an event, BEGIN IMMEDIATE and COMMIT once a turn), `store` (the
// same through the cloud's storage and its group commit) and `cloud` (`cloud/main.ts serve` of this checkout),
// alternated `rounds` times; the best round of each counts, with the server's CPU per event (user + system, /proc).
// `store` − `http` is the storage's share (of it,
// `defer` − `http` the turn a group waits for, `raw` − `defer` SQLite's own), `cloud` − `store` the route's own (auth,
// validation, dispatch, metrics).
//   node bench/cloud/event_floors.ts [seconds=3] [rounds=3] [connections=8] [labels=http,defer,raw,store,cloud]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchProject, benchProject } from "./project.ts";
import { runtimeCommand, type ServerProcess, startServer } from "../server_process.ts";
import { ensureWrk, runWrk } from "../wrk.ts";

const [seconds = 3, rounds = 3, connections = 8] = process.argv.slice(2, 5).map(Number);
const labels = (process.argv[5] ?? "http,defer,raw,store,cloud").split(",");
ensureWrk();
const dir = mkdtempSync(join(tmpdir(), "svc-event-floors-"));
const servers: { label: string; server: ServerProcess; project: BenchProject }[] = [];
try {
  for (const label of labels) {
    const db = `file:${join(dir, `${label}.db`)}`;
    const project = await benchProject(db);
    const command = label === "cloud"
      ? runtimeCommand("deno", "cloud/main.ts")
        .concat("serve", "--port", "0", "--host", "127.0.0.1", "--db", db, "--rate-limit-project", "0")
      : runtimeCommand("deno", "bench/cloud/event_floor_server.ts").concat(label, db, project.projectId);
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
  const best = new Map<string, { rps: number; us: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const s of servers) {
      const before = s.server.cpuSeconds();
      const result = await load(s, seconds, connections);
      if (result.non2xx > 0) throw new Error(`${s.label}: ${result.non2xx} non-2xx`);
      const us = (s.server.cpuSeconds() - before) / (result.rps * seconds) * 1e6;
      console.error(`round ${round + 1} ${s.label}: ${Math.round(result.rps)}/s, ${us.toFixed(1)} µs`);
      const kept = best.get(s.label) ?? { rps: 0, us: Infinity };
      best.set(s.label, { rps: Math.max(kept.rps, result.rps), us: Math.min(kept.us, us) });
    }
  }
  for (const [label, b] of best) {
    console.log(`${label} c=${connections}: ${Math.round(b.rps)} events/s, server CPU ${b.us.toFixed(1)} µs/event`);
  }
} finally {
  await Promise.all(servers.map((s) => s.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
