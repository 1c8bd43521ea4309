// `npm run bench` (full, a few minutes) and `npm run bench -- --quick` (under
// 90 s): every scenario next to its baseline, one runtime at a time, over
// 127.0.0.1. Options: --only=app|cloud|events|revocation, --runtimes=deno,bun,node (events: the cloud's
// single events at 1, 8 and 50 connections and batches, on Deno only).
import { appBench } from "./app_bench.ts";
import { cloudBench } from "./cloud_bench.ts";
import { revocationBench } from "./revocation_bench.ts";
import { markdownTable, writeReports } from "./report.ts";
import type { Result } from "./result.ts";
import type { Runtime } from "./server_process.ts";
import { ensureWrk } from "./wrk.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const only = args.find((a) => a.startsWith("--only="))?.slice(7);
const runtimes = (args.find((a) => a.startsWith("--runtimes="))?.slice(11) ?? "deno,bun,node").split(",") as Runtime[];

ensureWrk();
const started = Date.now();
const results: Result[] = [];
const plan = quick ? { warmSeconds: 1, seconds: 2, rounds: 1 } : { warmSeconds: 2, seconds: 4, rounds: 2 };
// The key-count scenario runs on the first runtime only (the full run seeds 1,000,000 keys once, into bench/.cache/).
const manyKeys = quick ? 100_000 : 1_000_000;
if (only === undefined || only === "app") {
  for (const [i, runtime] of runtimes.entries()) {
    console.error(`app side on ${runtime}…`);
    results.push(...await appBench(runtime, { ...plan, manyKeys: i === 0 ? manyKeys : 0 }));
  }
}
if (only === undefined || only === "cloud") results.push(...await cloudBench({ quick }));
if (only === "events") results.push(...await cloudBench({ quick, eventsOnly: true }));
if (only === undefined || only === "revocation") results.push(...await revocationBench({ samples: quick ? 20 : 100 }));
console.log(markdownTable(results));
writeReports(results, !quick && only === undefined && runtimes.length === 3);
console.error(`done in ${Math.round((Date.now() - started) / 1000)} s; wrote bench/results.json`);
