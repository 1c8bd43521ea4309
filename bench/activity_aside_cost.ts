// What writing the app's activity records costs the main thread, written on its connection or set aside to the
// database's worker thread (`Executor.writeAside`, issue 41), in process:
//   <deno run -A|bun|node> bench/activity_aside_cost.ts [rows=20000] [rounds=7]
// Each variant gets its own file database (WAL, the app's native executor, checkpoints included); each round writes
// `rows` records as the activity log does (groups of 500, 50 rows a multi-row INSERT, a 0 ms timer between groups) into
// each variant in turn (alternated), and prints, best of the rounds, the main thread's CPU a row (user + system, from
// /proc/thread-self/stat, Linux), the process's (all threads), and the time the main thread spent handing a group over.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { monotonicFactory } from "ulid";
import { type Executor, migrate, openDatabase } from "../core/db/mod.ts";
import type { ActivityRecord } from "../core/contract/mod.ts";
import { APP_MIGRATIONS, APP_MIGRATIONS_TABLE } from "../core/app/storage/mod.ts";
import { insertActivity } from "../core/app/storage/libsql_activity.ts";
import { argv } from "./app/runtime_args.ts";

const [rowsArg = "20000", roundsArg = "7"] = argv();
const rows = Number(rowsArg);
const rounds = Number(roundsArg);
const GROUP = 500;

const mint = monotonicFactory();
let clock = Date.parse("2026-11-27T00:00:00.000Z");
/** A run's record as the activity log mints it (the app bench's load: one user, one key). */
function record(i: number): ActivityRecord {
  if (i % 4 === 0) clock++;
  return {
    id: `act_${mint(clock)}`,
    at: new Date(clock).toISOString(),
    keyId: "key_00000000000000000000000001",
    userId: "user-1",
    agentId: "agent-1",
    intent: "notes.create",
    via: "http",
    outcome: "ok",
    status: 200,
    ms: 0.123 + (i % 7),
  };
}

/** The main thread's CPU time (this thread: the one that runs the event loop), in microseconds. */
function mainThreadUs(): number {
  const fields = readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // utime, stime (fields 14, 15), in 10 ms ticks
}

/** The executor without `writeAside`: every group written on the main thread's connection, as before. */
function here(db: Executor): Executor {
  return {
    engine: db.engine,
    execute: (s) => db.execute(s),
    batch: (s, mode) => db.batch(s, mode),
    transaction: (work, mode) => db.transaction(work, mode),
    dataVersion: () => db.dataVersion(),
    close: () => db.close(),
  };
}

const dir = mkdtempSync(join(tmpdir(), "svc-activity-aside-"));
const variants = new Map<string, Executor>();
try {
  for (const name of ["here", "aside", "none"]) {
    const db = await openDatabase(`file:${join(dir, `${name}.db`)}`);
    await migrate(db, APP_MIGRATIONS_TABLE, APP_MIGRATIONS);
    // `none`: the statements built and dropped, the floor of what the main thread does either way.
    variants.set(
      name,
      name === "here" ? here(db) : name === "none" ? { ...here(db), writeAside: () => Promise.resolve() } : db,
    );
  }
  const best = new Map<string, { main: number; all: number; handOver: number }>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, db] of variants) {
      const records = Array.from({ length: rows }, (_, i) => record(i));
      const main0 = mainThreadUs();
      const all0 = process.cpuUsage();
      let handOver = 0;
      for (let i = 0; i < rows; i += GROUP) {
        const t0 = performance.now();
        const written = insertActivity(db, records.slice(i, i + GROUP), { keep: true, mirror: false });
        handOver += performance.now() - t0;
        await written;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
      const all = process.cpuUsage(all0);
      const figures = {
        main: (mainThreadUs() - main0) / rows,
        all: (all.user + all.system) / rows,
        handOver: handOver * 1000 / (rows / GROUP),
      };
      const was = best.get(name);
      best.set(name, {
        main: Math.min(was?.main ?? Infinity, figures.main),
        all: Math.min(was?.all ?? Infinity, figures.all),
        handOver: Math.min(was?.handOver ?? Infinity, figures.handOver),
      });
    }
  }
  const runtime = "Deno" in globalThis ? "deno" : "Bun" in globalThis ? "bun" : "node";
  for (const [name, b] of best) {
    console.log(
      `${runtime} ${name}: main thread ${b.main.toFixed(2)} µs a row, all threads ${b.all.toFixed(2)} µs a row, ` +
        `${
          b.handOver.toFixed(0)
        } µs on the main thread until a group's write is under way (includes the inserts when here)`,
    );
  }
} finally {
  for (const db of variants.values()) db.close();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
