/**
 * Group commit: small writes that arrive together (single events, violations,
 * `lastUsedAt` touches) are written in one transaction per event-loop turn
 * instead of one each. Every caller's promise settles only after the
 * transaction holding its statements has committed, so an answer sent after
 * it still means "durable". If the shared transaction fails, each caller's
 * statements are retried alone, so one bad write never fails the others.
 *
 * @module
 */
import type { Executor, ResultSet, Statement } from "./executor.ts";

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
 * @param db The executor.
 * @returns The committer.
 */
export function createGroupCommit(db: Executor): GroupCommit {
  let queued: Pending[] = [];
  let scheduled: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

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
      const { statements } = pending;
      pending.resolve(
        statements.length === 1 ? [await db.execute(statements[0])] : await db.batch(statements, "write"),
      );
    } catch (error) {
      pending.reject(error);
    }
  }

  function drain(): Promise<void> {
    scheduled = undefined;
    if (queued.length === 0) return writing;
    const group = queued;
    queued = [];
    writing = writing.then(() => commit(group));
    return writing;
  }

  return {
    write(statements) {
      return new Promise<ResultSet[]>((resolve, reject) => {
        queued.push({ statements, resolve, reject });
        scheduled ??= setTimeout(drain, 0);
      });
    },
    flush() {
      if (scheduled !== undefined) clearTimeout(scheduled);
      return drain();
    },
  };
}
