// Cloud side, on Deno (cloud/main.ts serve) and on the compiled dist/svc-cloud
// when it exists: events (single and batches of 500) against raw libSQL
// inserts, the inbox cycle, violation pages at 1M rows, and 1,000 long polls.
// `eventsOnly` (`--only=events`): single events, batches and 5,000 idle long polls
// on `cloud/main.ts serve` on each runtime asked for (Deno as `npm start` runs it,
// Node as `npm run svc-cloud`, Bun as the compiled binary's runtime).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchProject, benchProject } from "./cloud/project.ts";
import { violationsDatabase } from "./cloud/seed_violations.ts";
import { inboxCycle, longPoll } from "./cloud/agents.ts";
import { idlePolls } from "./cloud/idle_polls.ts";
import { loneWrites } from "./cloud/lone_write.ts";
import { ratio, type Result } from "./result.ts";
import { ROOT, type Runtime, runtimeCommand, type ServerProcess, startServer } from "./server_process.ts";
import { runWrk } from "./wrk.ts";

interface Target {
  name: string;
  command: string[];
}

/**
 * Measures the cloud.
 *
 * @param options `quick` for the short run.
 * @returns The results.
 */
export async function cloudBench(
  options: { quick: boolean; eventsOnly?: boolean; runtimes?: readonly Runtime[] },
): Promise<Result[]> {
  const targets: Target[] = [{ name: "deno", command: runtimeCommand("deno", "cloud/main.ts") }];
  if (options.eventsOnly) {
    const results: Result[] = [];
    for (const runtime of options.runtimes ?? ["deno"]) {
      const target = { name: runtime, command: runtimeCommand(runtime, "cloud/main.ts") };
      console.error(`events on ${runtime}…`);
      results.push(...await events(target, options.quick), ...await idle(target, options.quick));
    }
    return [...results, ...await lone(options)];
  }
  const binary = `${ROOT}dist/svc-cloud`;
  if (!existsSync(binary) && !options.quick) {
    console.error("building dist/svc-cloud…");
    spawnSync("npm", ["run", "compile"], { cwd: ROOT, stdio: "ignore" });
  }
  if (existsSync(binary) && !options.quick) targets.push({ name: "binary", command: [binary] });
  else console.error("dist/svc-cloud is not built (npm run compile): measuring Deno only");
  const results: Result[] = [];
  // The full run measures the target's 1,000,000 rows; the quick run seeds 200,000 so that a fresh clone stays under 90 s.
  const rows = options.quick ? 200_000 : 1_000_000;
  const violations = { ...await violationsDatabase(rows), rows };
  for (const target of targets) {
    console.error(`cloud on ${target.name}…`);
    results.push(...await events(target, options.quick));
    results.push(...await agents(target, options.quick));
    results.push(...await violationPages(target, violations, options.quick));
  }
  return results;
}

function serve(target: Target, db: string, extra: string[] = []): Promise<ServerProcess> {
  return startServer(
    [...target.command, "serve", "--port", "0", "--host", "127.0.0.1", "--db", db, ...extra],
    /listening on http:\/\/[^:]+:(\d+)/,
  );
}

function rawSql(args: string[]): Record<string, never> {
  return JSON.parse(execFileSync(runtimeCommand("deno", "bench/cloud/raw_sql.ts")[0], [
    ...runtimeCommand("deno", "bench/cloud/raw_sql.ts").slice(1),
    ...args,
  ], { cwd: ROOT, encoding: "utf8" }));
}

async function withDatabase<T>(fn: (db: string, project: BenchProject) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-cloud-"));
  try {
    const db = `file:${join(dir, "cloud.db")}`;
    return await fn(db, await benchProject(db));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Connections of the single-event runs: one caller, a few, many. */
const EVENT_CONNECTIONS = [1, 8, 50] as const;

async function events(target: Target, quick: boolean): Promise<Result[]> {
  const seconds = quick ? 2 : 5;
  const [singles, batch] = await withDatabase(async (db, project) => {
    // The project's write budget (6,000 a minute by default) off: wrk sends everything as one project.
    const server = await serve(target, db, ["--rate-limit-project", "0"]);
    try {
      const env = { SECRET: project.sdkSecret, PROJECT: project.projectId, AGENTS: "4" };
      const load = (batch: number, s: number, prefix: string, connections: number) =>
        runWrk(`${server.url}/v1/events${batch === 1 ? "" : "/batch"}`, {
          script: "events.lua",
          env: { ...env, BATCH: String(batch), PREFIX: prefix },
          seconds: s,
          connections,
        });
      await load(1, 1, "warm", 50);
      const singles = [];
      for (const c of EVENT_CONNECTIONS) singles.push(await load(1, seconds, `single${c}`, c));
      const batch = await load(500, seconds, "batch", 4);
      const non2xx = singles.reduce((n, r) => n + r.non2xx, batch.non2xx);
      if (non2xx) throw new Error(`events: ${non2xx} non-2xx`);
      return [singles, batch];
    } finally {
      await server.stop();
    }
  });
  const raw = await withDatabase((db, project) => {
    const batch500 = rawSql(["events", db, project.projectId, "500", String(seconds)]).eventsPerSec as number;
    const one = rawSql(["events", db, project.projectId, "1", String(seconds)]).eventsPerSec as number;
    return Promise.resolve({ batch500, one });
  });
  const batchRate = batch.rps * 500;
  const single = (c: number, i: number): Result => ({
    scenario: `events, single, ${c} connection${c === 1 ? "" : "s"} (file: db)`,
    runtime: target.name,
    value: Math.round(singles[i].rps),
    unit: "events/s",
    baseline: Math.round(raw.one),
    ratio: ratio(singles[i].rps, raw.one),
    ...(c === 8 ? { target: "≥ 20,000/s", met: singles[i].rps >= 20_000 } : {}),
    p50Ms: singles[i].p50,
    p99Ms: singles[i].p99,
    baselineIs: "raw libSQL: one INSERT per transaction, sequential",
  });
  return [
    {
      scenario: "events, batches of 500 (events/s)",
      runtime: target.name,
      value: Math.round(batchRate),
      unit: "events/s",
      baseline: Math.round(raw.batch500),
      ratio: ratio(batchRate, raw.batch500),
      target: "≥ 1.00× raw inserts",
      met: batchRate / raw.batch500 >= 1,
      p50Ms: batch.p50,
      p99Ms: batch.p99,
      baselineIs: "raw libSQL: 500 INSERTs in one transaction, same rows, one connection",
    },
    ...EVENT_CONNECTIONS.map(single),
    {
      scenario: "single event, 1 connection: p50",
      runtime: target.name,
      value: singles[0].p50,
      unit: "ms p50",
      baseline: null,
      ratio: null,
      target: "< 0.3 ms",
      met: singles[0].p50 < 0.3,
      p50Ms: singles[0].p50,
      p99Ms: singles[0].p99,
    },
  ];
}

/** A lone write through the group commit, in this process, against the 0 ms timer it waited for before. */
async function lone(options: { quick: boolean }): Promise<Result[]> {
  const { afterIo, timer } = await loneWrites(options.quick ? 300 : 1000, options.quick ? 2 : 3);
  return [{
    scenario: "lone write through the group commit: p50 (in process, Node, file: db)",
    runtime: "node",
    value: Math.round(afterIo.p50 * 1000) / 1000,
    unit: "ms p50",
    baseline: Math.round(timer.p50 * 1000) / 1000,
    ratio: ratio(afterIo.p50, timer.p50),
    p50Ms: afterIo.p50,
    p99Ms: afterIo.p99,
    baselineIs: `the same writes with a 0 ms timer, the scheduler before issue 26 (p99 ${timer.p99.toFixed(3)} ms)`,
  }];
}

/** The idle long polls alone (the rows of {@linkcode agents} that `--only=events` also reports). */
function idle(target: Target, quick: boolean): Promise<Result[]> {
  return withDatabase(async (db, project) => {
    const server = await serve(target, db);
    try {
      return idleRows(target, await idlePolls(server, project, 5000, quick ? 3 : 5));
    } finally {
      await server.stop();
    }
  });
}

function idleRows(target: Target, idle: Awaited<ReturnType<typeof idlePolls>>): Result[] {
  return [
    {
      scenario: "5,000 idle long polls: CPU",
      runtime: target.name,
      value: Math.round(idle.cpuShare * 1000) / 10,
      unit: "% of a core",
      baseline: Math.round(idle.baselineCpuShare * 1000) / 10,
      ratio: null,
      target: "< 5% of a core",
      met: idle.cpuShare < 0.05,
      baselineIs: `the same server idle without polls; measured once the polls' arrival was over: ${
        idle.settleSeconds.toFixed(1)
      } s, ${Math.round(idle.arrivalCpuUsPerPoll)} µs of CPU a poll`,
    },
    {
      scenario: "5,000 idle long polls: extra memory",
      runtime: target.name,
      value: Math.round(idle.extraMb * 10) / 10,
      unit: "MB",
      baseline: Math.round(idle.idleMb * 10) / 10,
      ratio: ratio(idle.extraMb, idle.idleMb),
      target: "< 100 MB",
      met: idle.extraMb < 100,
      baselineIs: "server RSS before the polls",
    },
  ];
}

function agents(target: Target, quick: boolean): Promise<Result[]> {
  return withDatabase(async (db, project) => {
    const server = await serve(target, db);
    const other = await serve(target, db);
    try {
      const cycle = await inboxCycle(server, project, quick ? 20_000 : 100_000);
      const poll = await longPoll(server, project, 1000);
      const cross = await longPoll(server, project, quick ? 100 : 300, other);
      const idle = await idlePolls(server, project, 5000, quick ? 3 : 5);
      return [
        {
          scenario: "inbox cycle (poll 200, ack 200)",
          runtime: target.name,
          value: Math.round(cycle.itemsPerSec),
          unit: "items/s",
          baseline: Math.round(cycle.emitPerSec),
          ratio: ratio(cycle.itemsPerSec, cycle.emitPerSec),
          target: "≥ 20,000 items/s",
          met: cycle.itemsPerSec >= 20_000,
          baselineIs: "the same items emitted in batches of 500, same server",
        },
        {
          scenario: "1,000 long polls: emit → delivery",
          runtime: target.name,
          value: Math.round(poll.delay.p99 * 100) / 100,
          unit: "ms p99",
          baseline: Math.round(poll.singleDelay.p99 * 100) / 100,
          ratio: ratio(poll.delay.p99, poll.singleDelay.p99),
          target: "< 50 ms p99",
          met: poll.delay.p99 < 50,
          p50Ms: poll.delay.p50,
          p99Ms: poll.delay.p99,
          baselineIs: "one poller alone, p99",
        },
        {
          scenario: "emit in process A → delivery to a poll in process B (same file)",
          runtime: target.name,
          value: Math.round(cross.delay.p99 * 100) / 100,
          unit: "ms p99",
          baseline: Math.round(poll.delay.p99 * 100) / 100,
          ratio: ratio(cross.delay.p99, poll.delay.p99),
          target: "p99 < 20 ms",
          met: cross.delay.p99 < 20,
          p50Ms: cross.delay.p50,
          p99Ms: cross.delay.p99,
          baselineIs: "the same delivery within one process, p99",
        },
        ...idleRows(target, idle),
      ];
    } finally {
      await Promise.all([server.stop(), other.stop()]);
    }
  });
}

async function violationPages(
  target: Target,
  data: BenchProject & { db: string; rows: number },
  quick: boolean,
): Promise<Result[]> {
  const seconds = quick ? 2 : 5;
  const raw = rawSql(["violations", data.db, data.projectId, quick ? "30" : "100"]) as Record<
    string,
    { p50: number; p99: number }
  >;
  const server = await serve(target, data.db);
  try {
    const env = { SECRET: data.sdkSecret, PROJECT: data.projectId };
    const page = (query: string) =>
      runWrk(`${server.url}/v1/sdk/violations?${query}`, { script: "get_sdk.lua", env, seconds, connections: 1 });
    await page("limit=50");
    const none = await page("limit=50");
    const filtered = await page("kind=FORBIDDEN_SCOPE&severity=warning&limit=50");
    const row = (scenario: string, r: typeof none, base: { p50: number; p99: number }): Result => ({
      scenario,
      runtime: target.name,
      value: r.p99,
      unit: "ms p99",
      baseline: Math.round(base.p99 * 100) / 100,
      ratio: ratio(r.p99, base.p99),
      target: "p99 < 20 ms",
      met: r.p99 < 20 && r.non2xx === 0,
      p50Ms: r.p50,
      p99Ms: r.p99,
      baselineIs: "the same page + COUNT(*) in-process, raw libSQL",
    });
    return [
      row(`violations page at ${label(data.rows)} rows, with total`, none, raw.none),
      row(`violations page at ${label(data.rows)} rows, kind+severity filter`, filtered, raw.kind_severity),
    ];
  } finally {
    await server.stop();
  }
}

function label(rows: number): string {
  return rows >= 1_000_000 ? `${rows / 1_000_000}M` : `${rows / 1000}k`;
}
