// `npm run bench` (full, a few minutes) and `npm run bench -- --quick` (under
// 90 s): every scenario next to its baseline, one runtime at a time, over
// 127.0.0.1. Options: --only=app|cloud|events|revocation|faults|scale|activity|queue (or a list: --only=app,events), --runtimes=deno,bun,node,
// --rounds=N (alternated rounds of the app side), --keys=N (the many-keys run; 0 leaves it out).
// `events` is the cloud's single events at 1, 8 and 50 connections, batches and 5,000 idle long polls, on each of --runtimes.
// `npm run bench -- --only=app,events` is the user's path of issue 26 (bench/README.md, "The user's path").
// `scale` (only when named) is three `cloud/main.ts serve` nodes on one file and on the Hrana fixture (scale_bench.ts).
// `faults` (only when named) is the promises under faults: an outage, lost answers, a stall, SIGTERM, a restart.
// `activity` (only when named) is the activity record at 1,000,000 records: the dashboard's pages, batches, the export.
// `queue` (only when named) is the inbox as a queue: 8 leased workers over 100,000 events, 1 and 2 cloud processes.
import { appBench } from "./app_bench.ts";
import { cloudBench } from "./cloud_bench.ts";
import { revocationBench } from "./revocation_bench.ts";
import { faultsBench } from "./faults_bench.ts";
import { activityBench } from "./activity_bench.ts";
import { scaleBench } from "./scale_bench.ts";
import { queueBench } from "./queue_bench.ts";
import { markdownTable, writeReports } from "./report.ts";
import type { Result } from "./result.ts";
import type { Runtime } from "./server_process.ts";
import { ensureWrk } from "./wrk.ts";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const onlyList = args.find((a) => a.startsWith("--only="))?.slice(7).split(",");
const wanted = (part: string) => onlyList === undefined || onlyList.includes(part);
const only = onlyList?.join(",");
const runtimes = (args.find((a) => a.startsWith("--runtimes="))?.slice(11) ?? "deno,bun,node").split(",") as Runtime[];

ensureWrk();
const started = Date.now();
const results: Result[] = [];
const roundsArg = args.find((a) => a.startsWith("--rounds="))?.slice(9);
const plan = quick ? { warmSeconds: 1, seconds: 2, rounds: 1 } : { warmSeconds: 2, seconds: 4, rounds: 3 };
if (roundsArg !== undefined) plan.rounds = Number(roundsArg);
// The key-count scenario runs on the first runtime only (the full run seeds 1,000,000 keys once, into bench/.cache/);
// `--keys=0` leaves it out.
const keysArg = args.find((a) => a.startsWith("--keys="))?.slice(7);
const manyKeys = keysArg !== undefined ? Number(keysArg) : quick ? 100_000 : 1_000_000;
if (wanted("app")) {
  for (const [i, runtime] of runtimes.entries()) {
    console.error(`app side on ${runtime}…`);
    results.push(...await appBench(runtime, { ...plan, manyKeys: i === 0 ? manyKeys : 0 }));
  }
}
if (results.length > 0) console.error(markdownTable(results)); // kept even if a later part fails
if (wanted("cloud")) results.push(...await cloudBench({ quick }));
if (onlyList?.includes("events")) results.push(...await cloudBench({ quick, eventsOnly: true, runtimes }));
if (wanted("revocation")) results.push(...await revocationBench({ samples: quick ? 20 : 100 }));
if (onlyList?.includes("faults")) results.push(...await faultsBench({ quick }));
if (onlyList?.includes("activity")) results.push(...await activityBench({ quick }));
if (onlyList?.includes("scale")) results.push(...await scaleBench({ quick }));
if (onlyList?.includes("queue")) results.push(...await queueBench({ events: quick ? 5_000 : 100_000 }));
console.log(markdownTable(results));
const section = only === undefined
  ? "results"
  : only === "app,events"
  ? "user-path"
  : only === "faults"
  ? "faults"
  : only === "activity"
  ? "activity"
  : only === "scale"
  ? "scale"
  : undefined;
writeReports(
  results,
  !quick && section !== undefined &&
    (runtimes.length === 3 || section === "faults" || section === "activity" || section === "scale"),
  section,
);
console.error(`done in ${Math.round((Date.now() - started) / 1000)} s; wrote bench/results.json`);
