// What one group of single events costs SQLite and each layer above it, in process: the CPU time (user + system, all
// threads, the checkpoint worker's included) per event of writing `size` events a group, one group an event-loop turn
// (so a checkpoint worker's answers arrive), on a fresh `file:` database each, alternated, best of 5 rounds:
//   group     `createGroupCommit` over the native executor, `size` writes of one INSERT (what `appendEvents` does)
//   batch     the executor's `batch` of `size` INSERTs, no group commit
//   raw       the `libsql` binding alone: BEGIN IMMEDIATE, `size` runs of one prepared INSERT, COMMIT
//   multirow  the binding alone with one INSERT of `size` rows instead
//   dv        `raw` after a `PRAGMA data_version` read (one read transaction), as auth reads it once a turn
//   deno run -A bench/cloud/insert_variants.ts [size=8] [events=16000]
import process from "node:process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "libsql";
import { benchProject } from "./project.ts";
import { createGroupCommit, openDatabase } from "../../core/db/mod.ts";

const size = Number(process.argv[2] ?? 8);
const events = Number(process.argv[3] ?? 16_000);
const dir = mkdtempSync(join(tmpdir(), "svc-insert-variants-"));
const COLUMNS = "INSERT INTO cloud_events (project_id, event_id, type, agent_id, payload, created_at) VALUES";
const CONFLICT = "ON CONFLICT (project_id, event_id) WHERE replay_of IS NULL DO NOTHING";
const INSERT = `${COLUMNS} (?, ?, ?, ?, ?, ?) ${CONFLICT}`;
const at = new Date().toISOString();
let n = 0;
const row = (projectId: string) => {
  n++;
  return [projectId, `e-${n}`, "order.paid", `agent-${n % 4}`, JSON.stringify({ order: n, total: 42.5 }), at];
};
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function database(name: string): Promise<{ url: string; projectId: string }> {
  const url = `file:${join(dir, `${name}.db`)}`;
  return { url, projectId: (await benchProject(url)).projectId };
}

function binding(url: string) {
  const db = new Database(url.slice("file:".length), { timeout: 5000 });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  return db;
}

const variants: Record<string, () => Promise<() => Promise<void>>> = {
  async group() {
    const { url, projectId } = await database("group");
    const group = createGroupCommit(await openDatabase(url));
    return async () => {
      await Promise.all(Array.from({ length: size }, () => group.write([{ sql: INSERT, args: row(projectId) }])));
    };
  },
  async batch() {
    const { url, projectId } = await database("batch");
    const db = await openDatabase(url);
    return async () => {
      await turn();
      await db.batch(Array.from({ length: size }, () => ({ sql: INSERT, args: row(projectId) })), "write");
    };
  },
  async raw() {
    const { url, projectId } = await database("raw");
    const db = binding(url);
    const insert = db.prepare(INSERT);
    return async () => {
      await turn();
      db.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < size; i++) insert.run(row(projectId));
      db.exec("COMMIT");
    };
  },
  async multirow() {
    const { url, projectId } = await database("multirow");
    const db = binding(url);
    const insert = db.prepare(`${COLUMNS} ${Array(size).fill("(?, ?, ?, ?, ?, ?)").join(", ")} ${CONFLICT}`);
    return async () => {
      await turn();
      db.exec("BEGIN IMMEDIATE");
      insert.run(Array.from({ length: size }, () => row(projectId)).flat());
      db.exec("COMMIT");
    };
  },
  async dv() {
    const { url, projectId } = await database("dv");
    const db = binding(url);
    const insert = db.prepare(INSERT);
    const version = db.prepare("PRAGMA data_version").raw(true);
    return async () => {
      await turn();
      version.get([]);
      db.exec("BEGIN IMMEDIATE");
      for (let i = 0; i < size; i++) insert.run(row(projectId));
      db.exec("COMMIT");
    };
  },
};

try {
  const runs: [string, () => Promise<void>][] = [];
  for (const [name, make] of Object.entries(variants)) runs.push([name, await make()]);
  const best = new Map<string, number>();
  for (let round = 0; round < 5; round++) {
    for (const [name, one] of runs) {
      for (let i = 0; i < 100; i++) await one();
      const before = process.cpuUsage();
      for (let i = 0; i < events / size; i++) await one();
      const used = process.cpuUsage(before);
      best.set(name, Math.min(best.get(name) ?? Infinity, (used.user + used.system) / events));
    }
  }
  for (const [name, us] of best) console.log(`${name}: ${us.toFixed(1)} µs/event (groups of ${size}, CPU, best of 5)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0); // the executors' checkpoint workers
