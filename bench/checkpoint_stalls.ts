// What the WAL checkpoints of a file database cost the event loop, with the checkpoint in the executor's worker thread
// (the default) against on its connection (`checkpointWorker: null`, the fallback; what every runtime ran before),
// alternated. The load is an app recording activity: write batches of ROWS rows (the activity flush's groups), GAP ms
// between two (0: a turn of the event loop), for COMMITS commits; a 1 ms interval measures the event loop's
// stalls meanwhile. Prints, per round and mode: the commits' rate, the stalls over 10 and 20 ms, the largest, the
// longest synchronous part of a write batch, the WAL's size at the end, and the process's CPU time a commit.
//   <deno run -A|bun|node> bench/checkpoint_stalls.ts [rounds=3] [commits=400] [rows=500] [gap=5]
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openNativeExecutor } from "../core/db/native_executor.ts";
import process from "node:process";
import { argv } from "./app/runtime_args.ts";

const [roundsArg = "3", commitsArg = "400", rowsArg = "500", gapArg = "5"] = argv();
const [rounds, commits, rows, gap] = [roundsArg, commitsArg, rowsArg, gapArg].map(Number);
const dir = mkdtempSync(join(tmpdir(), "svc-checkpoint-stalls-"));
const turn = () => new Promise<void>((resolve) => gap > 0 ? setTimeout(resolve, gap) : setImmediate(resolve));

async function round(mode: "worker" | "here", n: number): Promise<string> {
  const file = join(dir, `${mode}-${n}.db`);
  const db = openNativeExecutor(`file:${file}`, {
    busyTimeoutMs: 5000,
    ...(mode === "here" ? { checkpointWorker: null } : {}),
  });
  await db.execute("CREATE TABLE t (user TEXT, id TEXT, v TEXT, PRIMARY KEY (user, id)) WITHOUT ROWID");
  const stalls: number[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    if (now - last - 1 > 2) stalls.push(now - last - 1);
    last = now;
  }, 1);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const body = "x".repeat(120);
  let longestCall = 0; // the synchronous part of a write batch (the binding's work; a busy BEGIN returns at once)
  for (let c = 0; c < commits; c++) {
    const called = performance.now();
    const written = db.batch(
      Array.from({ length: rows }, (_, i) => ({
        sql: "INSERT INTO t VALUES (?, ?, ?)",
        args: [`u${i % 50}`, String(c * rows + i).padStart(10, "0"), body],
      })),
      "write",
    );
    longestCall = Math.max(longestCall, performance.now() - called);
    await written;
    await turn();
  }
  const seconds = (performance.now() - started) / 1000;
  const { user, system } = process.cpuUsage(cpu);
  clearInterval(timer);
  const wal = statSync(`${file}-wal`).size;
  db.close();
  const over = (ms: number) => stalls.filter((s) => s > ms).length;
  return `${mode.padEnd(6)} ${(commits / seconds).toFixed(0).padStart(5)} commits/s  stalls >10 ms ${
    String(over(10)).padStart(3)
  }, >20 ms ${String(over(20)).padStart(3)}, largest ${
    Math.max(0, ...stalls).toFixed(0).padStart(4)
  } ms  longest batch call ${longestCall.toFixed(0).padStart(3)} ms  WAL ${(wal / 1e6).toFixed(1)} MB  CPU ${
    ((user + system) / 1000 / commits).toFixed(2)
  } ms a commit (all threads)`;
}

try {
  for (let n = 0; n < rounds; n++) {
    for (const mode of ["here", "worker"] as const) console.log(`round ${n + 1} ${await round(mode, n)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
