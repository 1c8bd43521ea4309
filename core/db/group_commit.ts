/**
 * Group commit: small writes that arrive together (single events, violations,
 * `lastUsedAt` touches) are written in one transaction per event-loop turn
 * instead of one each. The group is written as soon as the turn's I/O callbacks
 * have run (`setImmediate` where the runtime has it, as Deno, Bun and Node do),
 * never after a timer, or at once when it is full; writes that arrive while a
 * group is being written form the next one, which keeps filling until the
 * write before it is done (one transaction, not one per turn, while another
 * process holds the file's write lock). Every caller's promise settles only after the
 * transaction holding its statements has committed, so an answer sent after
 * it still means "durable". If the shared transaction fails, each caller's
 * statements are retried alone, so one bad write never fails the others.
 *
 * @module
 */
import type { Executor, ResultSet, Statement } from "./executor.ts";
import { afterIo, type Scheduler } from "./after_io.ts";

export type { Scheduler };

/** Statements in one group past which it is written at once, without waiting for the turn to end. */
export const GROUP_STATEMENTS_MAX = 500;

/** Options of {@linkcode createGroupCommit}. */
export interface GroupCommitOptions {
  /** Runs the write of a group once the current turn's I/O is done. Default {@linkcode afterIo}. */
  schedule?: Scheduler;
  /** Statements that make a group full. Default {@linkcode GROUP_STATEMENTS_MAX}. */
  maxStatements?: number;
}

/** Writes grouped per event-loop turn. */
export interface GroupCommit {
  /**
   * Queues statements to run together, atomically, in the next group.
   *
   * @param statements The caller's statements (they commit or fail together).
   * @returns Their results, once committed.
   */
  write(statements: readonly Statement[]): Promise<ResultSet[]>;
  /**
   * Resolves once everything queued so far is committed (or has failed).
   *
   * @returns When done.
   */
  flush(): Promise<void>;
}

interface Pending {
  statements: readonly Statement[];
  resolve(results: ResultSet[]): void;
  reject(error: unknown): void;
}

/**
 * Creates a group committer on an executor.
 *
 * @example Two writes of one turn, one transaction
 * ```ts
 * import { openDatabase } from "./database.ts";
 * import { createGroupCommit } from "./group_commit.ts";
 *
 * const db = await openDatabase(":memory:");
 * await db.execute("CREATE TABLE t (v TEXT)");
 * const group = createGroupCommit(db);
 * await Promise.all(["a", "b"].map((v) => group.write([{ sql: "INSERT INTO t VALUES (?)", args: [v] }])));
 * ```
 *
 * @param db The executor.
 * @param options The scheduler of a group's write and the size of a full group.
 * @returns The committer.
 */
export function createGroupCommit(db: Executor, options: GroupCommitOptions = {}): GroupCommit {
  const { schedule = afterIo, maxStatements = GROUP_STATEMENTS_MAX } = options;
  const queued: Pending[] = [];
  let queuedStatements = 0;
  let scheduled = false;
  let writing: Promise<void> = Promise.resolve();
  /** Groups taken and not yet written. */
  let inFlight = 0;

  async function commit(group: Pending[]): Promise<void> {
    if (group.length === 1) return settle(group[0]);
    let results: ResultSet[];
    try {
      results = await db.batch(group.flatMap((p) => p.statements), "write");
    } catch {
      // Something in the group failed: give each caller its own transaction and its own answer.
      for (const pending of group) await settle(pending);
      return;
    }
    let at = 0;
    for (const pending of group) {
      pending.resolve(results.slice(at, at + pending.statements.length));
      at += pending.statements.length;
    }
  }

  async function settle(pending: Pending): Promise<void> {
    try {
      // A write transaction even for one statement: on a file another process holds the write lock of, the executor
      // waits for it while the event loop runs (a single statement would wait inside SQLite, stopping the process).
      pending.resolve(await db.batch(pending.statements, "write"));
    } catch (error) {
      pending.reject(error);
    }
  }

  /** The writes queued now, up to a full group (the rest stay queued for the next one). */
  function take(): Pending[] {
    let statements = 0;
    let end = 0;
    while (end < queued.length && (end === 0 || statements + queued[end].statements.length <= maxStatements)) {
      statements += queued[end++].statements.length;
    }
    const group = queued.splice(0, end);
    queuedStatements -= statements;
    return group;
  }

  function drain(): Promise<void> {
    scheduled = false;
    if (queued.length === 0) return writing;
    if (inFlight === 0) {
      const group = take();
      inFlight++;
      writing = writing.then(() => write(group));
    } else {
      // A group is still being written (waiting for another process's write lock, say): this one is taken when its
      // turn comes, so writes that arrive meanwhile join it instead of forming groups of their own.
      writing = writing.then(() => {
        inFlight++;
        return write(take());
      });
    }
    return writing;
  }

  async function write(group: Pending[]): Promise<void> {
    try {
      if (group.length > 0) await commit(group);
    } finally {
      inFlight--;
    }
    // What a full group left behind is written next, never stranded.
    if (queued.length > 0 && !scheduled) {
      scheduled = true;
      schedule(drain);
    }
  }

  return {
    write(statements) {
      return new Promise<ResultSet[]>((resolve, reject) => {
        queued.push({ statements, resolve, reject });
        queuedStatements += statements.length;
        if (queuedStatements >= maxStatements) {
          drain(); // full: written now; a scheduled drain finds nothing or the next group
        } else if (!scheduled) {
          scheduled = true;
          schedule(drain);
        }
      });
    },
    async flush() {
      do await drain(); while (queued.length > 0);
    },
  };
}
