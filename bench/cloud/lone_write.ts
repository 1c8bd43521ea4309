// A lone write through the group commit, in process: the time from `write()` to its commit, one write at a time,
// with the default scheduler (once the turn's I/O is done) against a 0 ms timer (the scheduler before issue 26),
// alternated in rounds on the same `file:` database. Bounded: `writes` per round, `rounds` rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../core/db/mod.ts";
import { createGroupCommit, type Scheduler } from "../../core/db/mod.ts";

/** Median and 99th percentile of one scheduler's lone writes, in milliseconds. */
export interface LoneWrite {
  p50: number;
  p99: number;
}

/**
 * Measures lone writes with the default scheduler and with a 0 ms timer.
 *
 * @param writes Writes per round and scheduler.
 * @param rounds Rounds.
 * @returns Latencies of both.
 */
export async function loneWrites(writes: number, rounds: number): Promise<{ afterIo: LoneWrite; timer: LoneWrite }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-lone-"));
  const db = await openDatabase(`file:${join(dir, "lone.db")}`);
  try {
    await db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    const timer: Scheduler = (task) => void setTimeout(task, 0);
    const groups = { afterIo: createGroupCommit(db), timer: createGroupCommit(db, { schedule: timer }) };
    const times: Record<keyof typeof groups, number[]> = { afterIo: [], timer: [] };
    for (let round = 0; round < rounds; round++) {
      for (const name of ["afterIo", "timer"] as const) {
        for (let i = 0; i < writes; i++) {
          const started = performance.now();
          await groups[name].write([{ sql: "INSERT INTO t (v) VALUES (?)", args: ["x"] }]);
          times[name].push(performance.now() - started);
        }
      }
    }
    const stats = (list: number[]): LoneWrite => {
      const sorted = list.sort((a, b) => a - b);
      return { p50: sorted[Math.floor(sorted.length / 2)], p99: sorted[Math.floor(sorted.length * 0.99)] };
    };
    return { afterIo: stats(times.afterIo), timer: stats(times.timer) };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
