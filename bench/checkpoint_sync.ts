// What one WAL checkpoint holds the event loop for, and how much of it is its two fsyncs (issue 41, the p99 of a run
// with activity on): a file database as the native executor opens it (WAL, `wal_autocheckpoint = 0`) gets commits of
// about 700 pages (what an app recording activity writes between two checkpoints, `CHECKPOINT_FRAMES`), then a passive
// checkpoint, timed; `synchronous = NORMAL` (the executor's: the WAL is synced before the copy and the database file
// after) against `OFF` (the same copy without the syncs; never for real use), alternated. Prints the milliseconds of
// each checkpoint and the pages it copied.
//   <deno run -A|bun|node> bench/checkpoint_sync.ts [rounds=6]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-types="../core/db/libsql_binding.d.ts"
import Database from "libsql";
import { argv } from "./app/runtime_args.ts";

const [roundsArg = "6"] = argv();
const rounds = Number(roundsArg);
const dir = mkdtempSync(join(tmpdir(), "svc-checkpoint-sync-"));
try {
  for (const sync of ["NORMAL", "OFF", "NORMAL", "OFF"]) {
    const db = new Database(join(dir, `${sync}-${Math.random()}.db`));
    db.exec("PRAGMA journal_mode = WAL");
    db.exec(`PRAGMA synchronous = ${sync}`);
    db.exec("PRAGMA wal_autocheckpoint = 0");
    db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID");
    const insert = db.prepare("INSERT INTO t VALUES (?, ?)");
    const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").raw(true);
    const times: string[] = [];
    for (let round = 0; round < rounds; round++) {
      db.exec("BEGIN");
      for (let i = 0; i < 20_000; i++) insert.run([`${round}-${i}-${Math.random()}`, "x".repeat(100)]);
      db.exec("COMMIT");
      const started = performance.now();
      const [, frames] = checkpoint.get([]) as [number, number, number];
      times.push(`${(performance.now() - started).toFixed(1)} ms/${frames} pages`);
    }
    console.log(`synchronous = ${sync.padEnd(6)} ${times.join("  ")}`);
    db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
