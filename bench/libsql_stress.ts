// A bounded stress run of what the test suite and the servers do to libSQL's native module, to reproduce (or rule
// out) a crash inside it (issue 33, item 11). Each scenario runs in child processes of the same runtime, and the
// parent counts how each child ended: a signal (SIGSEGV, SIGABRT) is a native crash.
//
//   deno run -A bench/libsql_stress.ts                 (or: node bench/libsql_stress.ts, bun bench/libsql_stress.ts)
//   deno run -A bench/libsql_stress.ts --only=workers --children=20 --rounds=40 --seconds=120
//
// Scenarios: churn, inflight, crossfile, raw, callback, prepared, workers, exit (scripts), teardown (a `deno test`
// file whose timers use the project's executor after its tests ended: the pattern that crashed the suite), and, only
// when named, upstream (the same with the bare `libsql` binding: the reproduction for the upstream report).
// Options: --only=a,b (scenarios, default all but upstream), --children=N processes per scenario (default 6),
// --rounds=N inside a child (default 30), --seconds=S for the whole run (default 240; no child starts after it, and a
// child still running at the end, or after 60 s, is killed and counted as a timeout). Children run with --expose-gc
// so the scenarios can force collections while statements are alive.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { openDatabase } from "../core/db/mod.ts";

type Scenario = (dir: string, rounds: number) => Promise<void> | void;

const require = createRequire(import.meta.url);
// deno-lint-ignore no-explicit-any
type Native = any;
const Database = (): Native => require("libsql");

/** A full collection where the runtime exposes one (Deno and Node: --expose-gc; Bun: Bun.gc). */
function gc(): void {
  const g = globalThis as { gc?: () => void; Bun?: { gc(force: boolean): void } };
  if (g.gc) g.gc();
  else g.Bun?.gc(true);
}

/** Garbage to make the collector run on its own (finalizers of dropped statements run then). */
function pressure(): number {
  let sum = 0;
  for (let i = 0; i < 2000; i++) sum += new Array(200).fill(i).length;
  return sum;
}

const scenarios: Record<string, Scenario> = {
  /** Many executors opened and closed on files and :memory:, statements cached, then closed; collections between. */
  async churn(dir, rounds) {
    for (let r = 0; r < rounds; r++) {
      const dbs = await Promise.all(
        Array.from(
          { length: 6 },
          (_, i) => openDatabase(i % 3 === 0 ? ":memory:" : `file:${join(dir, `c${i % 3}.db`)}`),
        ),
      );
      for (const db of dbs) {
        await db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
        for (let i = 0; i < 20; i++) await db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`r${r}-${i}`] });
        await db.execute("SELECT * FROM t ORDER BY id DESC LIMIT 5");
        db.dataVersion();
      }
      for (const db of dbs) db.close();
      if (r % 3 === 0) gc();
      pressure();
    }
  },

  /** Statements and transactions still pending when their executor is closed (the close of a test's finally). */
  async inflight(dir, rounds) {
    for (let r = 0; r < rounds; r++) {
      const db = await openDatabase(`file:${join(dir, `f${r % 4}.db`)}`);
      await db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
      let release!: () => void;
      const gate = new Promise<void>((resolve) => release = resolve);
      const tx = db.transaction(async (t) => {
        await t.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["tx"] });
        await gate;
        await t.execute("SELECT count(*) AS n FROM t");
      }).catch(() => {});
      const waiting = Array.from(
        { length: 10 },
        (_, i) => db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`w${i}`] }).catch(() => {}),
      );
      const batch = db.batch(["SELECT 1", { sql: "INSERT INTO t (v) VALUES (?)", args: ["b"] }]).catch(() => {});
      db.close();
      release();
      await Promise.all([tx, batch, ...waiting]);
      gc();
      pressure();
    }
  },

  /** Transactions on two files at once, interleaved, one closed while the other commits. */
  async crossfile(dir, rounds) {
    for (let r = 0; r < rounds; r++) {
      const a = await openDatabase(`file:${join(dir, "a.db")}`);
      const b = await openDatabase(`file:${join(dir, "b.db")}`);
      const a2 = await openDatabase(`file:${join(dir, "a.db")}`);
      for (const db of [a, b]) await db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
      await Promise.all([
        a.transaction(async (t) => {
          await t.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["a"] });
          await b.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["b"] });
          await t.execute("SELECT * FROM t");
        }),
        b.transaction(async (t) => {
          await t.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: ["b2"] });
        }),
        a2.execute("SELECT * FROM t").catch(() => {}),
      ]);
      a2.close();
      b.close();
      a.close();
      if (r % 2 === 0) gc();
    }
  },

  /** The raw binding: statements prepared, half-iterated, the database closed, then the statements collected. */
  raw(dir, rounds) {
    const Db = Database();
    for (let r = 0; r < rounds; r++) {
      const db = new Db(r % 2 ? ":memory:" : join(dir, `raw${r}.db`), { timeout: 5000 });
      db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
      const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
      for (let i = 0; i < 300; i++) insert.run([`v${i}`]);
      const statements = Array.from({ length: 30 }, () => db.prepare("SELECT * FROM t"));
      const iterators = statements.map((s) => s.iterate([]));
      for (const it of iterators) it.next();
      statements[0].all([]);
      db.close();
      // Used after close: must throw, never crash.
      try {
        statements[1].all([]);
      } catch { /* closed */ }
      try {
        iterators[2].next();
      } catch { /* closed */ }
      if (r % 2 === 0) gc();
      pressure();
    }
  },

  /** A database closed from inside a promise callback and from inside an iteration over its rows. */
  async callback(dir, rounds) {
    const Db = Database();
    for (let r = 0; r < rounds; r++) {
      const db = new Db(join(dir, `cb${r}.db`), { timeout: 5000 });
      db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
      for (let i = 0; i < 200; i++) db.prepare("INSERT INTO t (v) VALUES (?)").run([`v${i}`]);
      let n = 0;
      try {
        for (const _row of db.prepare("SELECT * FROM t").iterate([])) {
          if (++n === 150) db.close();
        }
      } catch { /* closed mid-iteration */ }
      const executor = await openDatabase(`file:${join(dir, "cb2.db")}`);
      await executor.execute("CREATE TABLE IF NOT EXISTS t (v TEXT)");
      await Promise.all([
        executor.execute("SELECT 1").then(() => executor.close()),
        executor.execute({ sql: "INSERT INTO t VALUES (?)", args: ["x"] }).catch(() => {}),
      ]);
      gc();
    }
  },

  /** Many prepared statements in use together on one connection (the executor's statement cache, full and evicted). */
  async prepared(dir, rounds) {
    const db = await openDatabase(`file:${join(dir, "p.db")}`);
    await db.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
    for (let r = 0; r < rounds; r++) {
      // 300 distinct statements: more than the cache keeps, so statements are evicted and collected while others run.
      await Promise.all(
        Array.from(
          { length: 300 },
          (_, i) => db.execute({ sql: `SELECT v, ${i} AS k FROM t WHERE id > ?`, args: [i] }),
        ),
      );
      await db.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`r${r}`] });
      gc();
    }
    db.close();
    gc();
  },

  /**
   * Isolates that load the module, leave statements and databases to their finalizers and end (what `deno test`
   * does per test file and a worker pool does per task): the addon's environment is torn down while objects live.
   */
  async workers(dir, rounds) {
    for (let r = 0; r < rounds; r++) {
      await Promise.all(Array.from({ length: 2 }, (_, i) => runWorker(dir, r * 2 + i, r % 2 === 0)));
      pressure();
    }
  },

  /** The process exits while a long statement runs on a worker thread (a `kill` or `process.exit` mid-query). */
  async exit(dir, rounds) {
    for (let r = 0; r < Math.min(rounds, 3); r++) {
      const worker = new Worker(new URL(import.meta.url), {
        workerData: { dir, index: r, slow: true },
        argv: ["--worker"],
      } as never);
      await new Promise((resolve) => worker.once("message", resolve));
    }
    // Exit with the workers mid-statement (a recursive CTE that runs for seconds).
    process.exit(0);
  },
};

/** One worker: opens, works, optionally closes, and ends without collecting. */
function runWorker(dir: string, index: number, close: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      workerData: { dir, index, close, slow: false },
      argv: ["--worker"],
    } as never);
    worker.once("error", reject);
    worker.once("exit", () => resolve());
  });
}

async function workerMain(data: { dir: string; index: number; close: boolean; slow: boolean }): Promise<void> {
  const Db = Database();
  const db = new Db(join(data.dir, `w${data.index}.db`), { timeout: 5000 });
  db.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
  if (data.slow) {
    parentPort?.postMessage("running");
    db.prepare(
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 20000000) SELECT count(*) FROM c",
    ).get([]);
    return;
  }
  const executor = await openDatabase(`file:${join(data.dir, `e${data.index}.db`)}`);
  await executor.execute("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
  for (let i = 0; i < 30; i++) {
    db.prepare("INSERT INTO t (v) VALUES (?)").run([`w${i}`]);
    await executor.execute({ sql: "INSERT INTO t (v) VALUES (?)", args: [`e${i}`] });
  }
  const open = db.prepare("SELECT * FROM t").iterate([]);
  open.next();
  await executor.execute("SELECT * FROM t");
  if (data.close) {
    db.close();
    executor.close();
  }
  // End without a collection: the environment's teardown finalizes what is left.
}

/** How each child ended. */
interface Tally {
  ok: number;
  failed: number;
  signals: Record<string, number>;
  timeouts: number;
}

function option(name: string, fallback: number): number {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg === undefined ? fallback : Number(arg.slice(name.length + 3));
}

const runtime = (globalThis as { Deno?: unknown }).Deno
  ? "deno"
  : (globalThis as { Bun?: unknown }).Bun
  ? "bun"
  : "node";
const repoRoot = new URL("../", import.meta.url).pathname;

/**
 * Scenarios run by Deno's test runner rather than inside a script: a test file whose timers still use databases
 * after its tests ended. `teardown` goes through this project's executor (must never crash); `upstream` through the
 * bare `libsql` binding (the reproduction of the upstream bug: crashes on Deno 2.9.6 with libsql 0.5.29). Not in the
 * default set: `upstream` is expected to crash.
 */
const testFiles: Record<string, string> = {
  teardown: "tests/fixtures/native_teardown_case.ts",
  upstream: "bench/libsql_teardown_raw_case.ts",
};

/** The command that runs this file again in the same runtime, with collections exposed. */
function childCommand(scenario: string, rounds: number): string[] {
  const self = new URL(import.meta.url).pathname;
  if (scenario in testFiles) return [process.execPath, "test", "-A", "--no-check", testFiles[scenario]];
  const args = [`--child=${scenario}`, `--rounds=${rounds}`];
  if (runtime === "deno") return [process.execPath, "run", "-A", "--v8-flags=--expose-gc", self, ...args];
  if (runtime === "node") return [process.execPath, "--expose-gc", self, ...args];
  return [process.execPath, self, ...args];
}

/** The longest one child may run, in milliseconds: past it, it is killed and counted as timed out. */
const CHILD_MS = 60_000;

function runChild(
  cmd: string[],
  deadline: number,
): Promise<{ code: number | null; signal: string | null; err: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(cmd[0], cmd.slice(1), { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    let timedOut = false;
    child.stderr.on("data", (chunk) => err = (err + chunk).slice(-2000));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, Math.max(1000, Math.min(CHILD_MS, deadline - Date.now())));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, err, timedOut });
    });
  });
}

async function parent(): Promise<void> {
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7).split(",");
  const names = only ?? [...Object.keys(scenarios), "teardown"];
  const children = option("children", 6);
  const rounds = option("rounds", 30);
  const deadline = Date.now() + option("seconds", 240) * 1000;
  const results: Record<string, Tally> = {};
  let crashes = 0;
  for (const name of names) {
    if (!(name in scenarios) && !(name in testFiles)) {
      throw new Error(`unknown scenario ${name}: ${[...Object.keys(scenarios), ...Object.keys(testFiles)].join(", ")}`);
    }
    if (name in testFiles && runtime !== "deno") {
      console.log(`${name}: skipped, it is a case of Deno's test runner (run this file with deno)`);
      continue;
    }
    const tally: Tally = results[name] = { ok: 0, failed: 0, signals: {}, timeouts: 0 };
    for (let i = 0; i < children && Date.now() < deadline; i++) {
      const { code, signal, err, timedOut } = await runChild(childCommand(name, rounds), deadline);
      if (timedOut) tally.timeouts++;
      else if (signal !== null) {
        tally.signals[signal] = (tally.signals[signal] ?? 0) + 1;
        crashes++;
        console.error(`${name}: child ended by ${signal}\n${err}`);
      } else if (code === 0) tally.ok++;
      else {
        tally.failed++;
        console.error(`${name}: child exited ${code}\n${err}`);
      }
    }
  }
  console.log(`| scenario | exit 0 | failed | crashed (signal) | timed out |`);
  console.log(`| --- | ---: | ---: | --- | ---: |`);
  for (const [name, t] of Object.entries(results)) {
    const signals = Object.entries(t.signals).map(([s, n]) => `${n} ${s}`).join(", ") || "0";
    console.log(`| ${name} | ${t.ok} | ${t.failed} | ${signals} | ${t.timeouts} |`);
  }
  console.log(`native crashes: ${crashes}`);
  process.exitCode = crashes > 0 ? 1 : 0;
}

async function child(name: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "svc-libsql-stress-"));
  try {
    await scenarios[name](dir, option("rounds", 30));
  } finally {
    if (name !== "exit") rmSync(dir, { recursive: true, force: true });
  }
}

if (!isMainThread) await workerMain(workerData);
else {
  const childScenario = process.argv.find((a) => a.startsWith("--child="))?.slice(8);
  if (childScenario !== undefined) await child(childScenario);
  else await parent();
}
