// What a write transaction costs when several processes write one database file (WAL), without HTTP: N processes,
// each opening the file with the toolkit's executor (core/db, as `cloud/main.ts serve` does) and looping: when
// `dataVersion()` moved (another process committed), the project's secret read again (what the SDK check's cache does),
// WORK µs of CPU per event (what a request costs around its write), then one write batch of GROUP single events into
// the cloud's `cloud_events` (the statement cloud/inbox/libsql_events.ts runs), and a turn of the event loop. Each
// process reports its batches' mean wall time (lock waits taken off), their CPU time and its read syscalls per batch
// (/proc/self/io; `strace -f -c` around it counts the fsyncs); the lines compare 1 process with N.
//   node bench/wal_writers.ts [--processes=1,3] [--group=3] [--work=60] [--seconds=3] [--rounds=2]
//     [--pragmas="mmap_size=268435456;cache_size=-8000"]   (connection pragmas run after opening; repeat for variants)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { openDatabase } from "../core/db/mod.ts";
import { benchProject } from "./cloud/project.ts";

const INSERT = `INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at)
          VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, event_id) WHERE replay_of IS NULL DO NOTHING`;

interface Report {
  batches: number;
  events: number;
  wallMs: number;
  cpuMs: number;
  lockWaits: number;
  lockWaitMs: number;
  syscr: number;
  secretReads: number;
  walBytes: number;
}

function arg(name: string, fallback: string): string[] {
  const all = process.argv.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.slice(name.length + 3));
  return all.length > 0 ? all : [fallback];
}

function readSyscalls(): number {
  return Number(/syscr: (\d+)/.exec(readFileSync("/proc/self/io", "utf8"))![1]);
}

async function child(): Promise<void> {
  const [file, projectId, prefix, groupText, workText, secondsText, pragmas] = process.argv.slice(3);
  const group = Number(groupText);
  const report: Report = {
    batches: 0,
    events: 0,
    wallMs: 0,
    cpuMs: 0,
    lockWaits: 0,
    lockWaitMs: 0,
    syscr: 0,
    secretReads: 0,
    walBytes: 0,
  };
  const db = await openDatabase(`file:${file}`, {
    onLockWait: (seconds) => {
      report.lockWaits++;
      report.lockWaitMs += seconds * 1000;
    },
  });
  for (const p of pragmas.split(";").filter((s) => s.trim() !== "")) await db.execute(`PRAGMA ${p}`);
  const spin = (us: number) => {
    const end = performance.now() + us / 1000;
    while (performance.now() < end) { /* the requests' own work */ }
  };
  let seen = -1;
  let n = 0;
  const start = performance.now();
  const syscr = readSyscalls();
  while (performance.now() - start < Number(secondsText) * 1000) {
    const version = db.dataVersion();
    if (version !== seen) {
      seen = version ?? -1;
      await db.execute({ sql: "SELECT secret_hash FROM cloud_projects WHERE id = ?", args: [projectId] });
      report.secretReads++;
    }
    spin(Number(workText) * group);
    const at = new Date().toISOString();
    const statements = Array.from({ length: group }, () => ({
      sql: INSERT,
      args: [projectId, `${prefix}-${n++}`, "t", "a", '{"i":1}', at],
    }));
    const waited = report.lockWaitMs;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await db.batch(statements, "write");
    const c1 = process.cpuUsage(c0);
    report.wallMs += performance.now() - t0 - (report.lockWaitMs - waited);
    report.cpuMs += (c1.user + c1.system) / 1000;
    report.batches++;
    report.events += group;
    await new Promise((resolve) => setImmediate(resolve));
  }
  report.syscr = readSyscalls() - syscr;
  report.walBytes = statSync(`${file}-wal`).size;
  db.close();
  process.stdout.write(JSON.stringify(report));
}

function runChild(args: string[]): Promise<Report> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [import.meta.filename!, "--child", ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    p.stdout!.on("data", (d: Buffer) => out += d);
    p.on("exit", (code) => code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child exited ${code}`)));
  });
}

async function main(): Promise<void> {
  const counts = arg("processes", "1,3")[0].split(",").map(Number);
  const group = arg("group", "3")[0];
  const work = arg("work", "60")[0];
  const seconds = arg("seconds", "3")[0];
  const rounds = Number(arg("rounds", "2")[0]);
  for (let round = 1; round <= rounds; round++) {
    for (const pragmas of arg("pragmas", "")) {
      for (const count of counts) {
        const dir = mkdtempSync(join(tmpdir(), "svc-wal-writers-"));
        try {
          const file = join(dir, "cloud.db");
          const { projectId } = await benchProject(`file:${file}`);
          const reports = await Promise.all(
            Array.from(
              { length: count },
              (_, i) => runChild([file, projectId, `p${i}`, group, work, seconds, pragmas]),
            ),
          );
          const sum = (k: keyof Report) => reports.reduce((s, r) => s + r[k], 0);
          const batches = sum("batches");
          console.log(
            `round ${round}, ${count} process${count === 1 ? "" : "es"}${
              pragmas ? ` [${pragmas}]` : ""
            }, ${group} events a batch: ` +
              `${Math.round(sum("events") / Number(seconds))} events/s, ${batches} batches, ` +
              `${(sum("wallMs") / batches * 1000).toFixed(0)} µs a batch (lock waits taken off), ` +
              `${(sum("cpuMs") / batches * 1000).toFixed(0)} µs CPU, ${
                (sum("syscr") / batches).toFixed(1)
              } read syscalls, ` +
              `${sum("lockWaits")} lock waits (${sum("lockWaitMs").toFixed(0)} ms), ${
                sum("secretReads")
              } secret reads, ` +
              `WAL ${(Math.max(...reports.map((r) => r.walBytes)) / 1048576).toFixed(1)} MiB`,
          );
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
  }
}

if (process.argv[2] === "--child") await child();
else await main();
