// Where three nodes' CPU goes (issue 41): three `cloud/main.ts serve` (Deno) on one file, single events from
// CONNECTIONS (default 8) connections spread over the first 1 or 3 nodes (3+3+2), alternated rounds; for each run the
// nodes' CPU an event split by thread (/proc/PID/task/*/stat: the main thread, V8's helpers, the checkpoint worker) and
// into user and system time, each node's events/s and CPU an event, the database calls an event by operation (from
// each node's /v1/metrics), the write batches and their size, the lock waits, the WAL file's size and the worst p99.
// `CONNECTIONS=3 … 1` is the control: one node with the connections each of three nodes sees. `PROFILE_DIR=dir` runs
// node A with `--cpu-prof` (the profile is written when it stops).
//   node bench/scale_probe.ts [rounds=3] [seconds=4] [counts=1,3]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { benchProject } from "./cloud/project.ts";
import { runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";
import { runWrk } from "./wrk.ts";

const rounds = Number(process.argv[2] ?? 3);
const seconds = Number(process.argv[3] ?? 4);
const counts = (process.argv[4] ?? "1,3").split(",").map(Number);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);

/** CPU ticks of each thread of a process, by thread name. */
function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue;
    }
    const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")).replace(/[\d-]+$/, "").trim() ||
      "?";
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const key = tid === String(pid) ? "main" : name;
    out.set(key, (out.get(key) ?? 0) + Number(fields[11]) + Number(fields[12]));
    out.set("=user", (out.get("=user") ?? 0) + Number(fields[11]));
    out.set("=system", (out.get("=system") ?? 0) + Number(fields[12]));
  }
  return out;
}

/** The node's database call counts by operation, and the lock waits' sum. */
async function calls(node: ServerProcess): Promise<Map<string, number>> {
  const text = await (await fetch(`${node.url}/v1/metrics`)).text();
  const out = new Map<string, number>();
  for (const m of text.matchAll(/^svc_cloud_db_call_duration_seconds_(count|sum)\{operation="(\w+)"\} ([\d.e+-]+)/gm)) {
    out.set(`${m[2]}_${m[1]}`, Number(m[3]));
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "svc-scale-probe-"));
const nodes: ServerProcess[] = [];
try {
  const file = join(dir, "cloud.db");
  const db = `file:${file}`;
  const project = await benchProject(db);
  for (let i = 0; i < 3; i++) {
    nodes.push(
      await startServer(
        [
          ...(process.env.PROFILE_DIR && i === 0
            ? [
              ...runtimeCommand("deno", "").slice(0, 3),
              "--cpu-prof",
              `--cpu-prof-dir=${process.env.PROFILE_DIR}`,
              "cloud/main.ts",
            ]
            : runtimeCommand("deno", "cloud/main.ts")),
          "serve",
          ...["--port", "0", "--host", "127.0.0.1", "--db", db, "--rate-limit-project", "0"],
        ],
        /listening on http:\/\/[^:]+:(\d+)/,
      ),
    );
  }
  const env = { SECRET: project.sdkSecret, PROJECT: project.projectId, AGENTS: "4" };
  let run = 0;
  const load = async (count: number, s: number, quiet = false) => {
    const used = nodes.slice(0, count);
    const spread = Array.from(
      { length: count },
      (_, i) => Math.floor(CONNECTIONS / count) + (i < CONNECTIONS % count ? 1 : 0),
    );
    run++;
    const before = await Promise.all(used.map(calls));
    const tBefore = used.map((n) => threads(n.pid));
    let walMax = 0;
    const sampler = setInterval(() => {
      try {
        walMax = Math.max(walMax, statSync(`${file}-wal`).size);
      } catch { /* none yet */ }
    }, 100);
    const each = await Promise.all(spread.map((c, i) =>
      runWrk(`${nodes[i].url}/v1/events`, {
        script: "events.lua",
        env: { ...env, BATCH: "1", PREFIX: `p${run}n${i}` },
        seconds: s,
        connections: c,
      })
    ));
    clearInterval(sampler);
    const tAfter = used.map((n) => threads(n.pid));
    const after = await Promise.all(used.map(calls));
    if (quiet) return;
    const events = each.reduce((n, r) => n + r.rps, 0) * s;
    const byThread = new Map<string, number>();
    tAfter.forEach((t, i) => {
      for (const [k, v] of t) byThread.set(k, (byThread.get(k) ?? 0) + v - (tBefore[i].get(k) ?? 0));
    });
    const us = (ticks: number) => Math.round(ticks * 10_000 / events * 10) / 10;
    const total = [...byThread].filter(([k]) => !k.startsWith("=")).reduce((a, [, b]) => a + b, 0);
    const delta = (key: string) => after.reduce((n, a, i) => n + (a.get(key) ?? 0) - (before[i].get(key) ?? 0), 0);
    const batches = delta("batch_count");
    const perNode = used.map((_, i) => {
      const t = [...tAfter[i].entries()].filter(([k]) => !k.startsWith("=")).reduce(
        (n, [k, v]) => n + v - (tBefore[i].get(k) ?? 0),
        0,
      );
      return `${Math.round(each[i].rps)}/s ${us(t * events / (each[i].rps * s))}µs`;
    });
    console.log(
      `${count} node(s): ${Math.round(events / s)}/s, ${us(total)} µs CPU/event [${
        [...byThread.entries()].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${us(v)}`)
          .join(", ")
      }] per node: ${perNode.join(" | ")}; batches/event ${(batches / events).toFixed(3)} (${
        (events / batches).toFixed(2)
      } a batch, ${(delta("batch_sum") / batches * 1e3).toFixed(3)} ms), execute/event ${
        (delta("execute_count") / events).toFixed(3)
      }, tx/event ${(delta("transaction_count") / events).toFixed(3)}, lock waits ${delta("lock_wait_count")} (${
        Math.round(delta("lock_wait_sum") * 1e3)
      } ms), WAL max ${(walMax / 1e6).toFixed(1)} MB, p99 ${Math.max(...each.map((r) => r.p99))} ms`,
    );
  };
  await load(3, 1, true);
  for (let round = 0; round < rounds; round++) for (const count of counts) await load(count, seconds);
} finally {
  for (const node of nodes) await node.stop();
  rmSync(dir, { recursive: true, force: true });
}
