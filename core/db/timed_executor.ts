/**
 * An executor that tells how long each of its calls took, for the database latency metric: one statement, one batch,
 * or one transaction from its start to its commit (the wait for the connection included). It changes nothing else.
 *
 * @module
 */
import type { Executor } from "./executor.ts";
import { PLATFORM } from "../platform/mod.ts";

/**
 * What a timed call was; `lock_wait` is not a call but the time a call waited for another process's write lock on a
 * `file:` database (`OpenDatabaseOptions.onLockWait`).
 */
export type DatabaseOperation = "execute" | "batch" | "transaction" | "lock_wait";

/**
 * Wraps an executor so that `observe` is told the duration of every call, failed ones too.
 *
 * @example Count the time spent in the database
 * ```ts
 * import { openDatabase, timedExecutor } from "./mod.ts";
 *
 * let total = 0;
 * const db = timedExecutor(await openDatabase(":memory:"), (_operation, seconds) => total += seconds);
 * await db.execute("SELECT 1");
 * console.log(total > 0); // true
 * db.close();
 * ```
 *
 * @param db The executor.
 * @param observe Told of each call: what it was and how many seconds it took.
 * @param elapsed The monotonic clock, in milliseconds (default the platform's).
 * @returns The timed executor.
 */
export function timedExecutor(
  db: Executor,
  observe: (operation: DatabaseOperation, seconds: number) => void,
  elapsed: () => number = PLATFORM.elapsed,
): Executor {
  const timed = async <T>(operation: DatabaseOperation, call: () => Promise<T>): Promise<T> => {
    const started = elapsed();
    try {
      return await call();
    } finally {
      observe(operation, (elapsed() - started) / 1000);
    }
  };
  return {
    engine: db.engine,
    execute: (statement) => timed("execute", () => db.execute(statement)),
    batch: (statements, mode) => timed("batch", () => db.batch(statements, mode)),
    transaction: (work, mode) => timed("transaction", () => db.transaction(work, mode)),
    dataVersion: () => db.dataVersion(),
    close: () => db.close(),
  };
}
