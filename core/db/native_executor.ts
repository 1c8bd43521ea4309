/**
 * The native engine: the `libsql` binding (the better-sqlite3-style API that
 * `@libsql/client` itself loads for local files), with a bounded cache of
 * prepared statements, for `file:` and `:memory:` databases. The binding is
 * synchronous, so a batch runs from BEGIN to COMMIT without yielding; a
 * {@linkcode Executor.transaction} holds the connection and makes other
 * callers wait until it ends.
 *
 * A write transaction on a file another process holds the write lock of
 * (several cloud nodes on one file) waits for it without blocking: SQLite's
 * own busy handler sleeps inside the call (1, 2, 5, 10… ms), which on a
 * synchronous binding stops the whole process, so its `BEGIN IMMEDIATE` is
 * tried with a busy timeout of 0 and, refused with `SQLITE_BUSY`, tried again
 * after the event loop has turned ({@linkcode BUSY_PAUSES_MS}), up to the busy
 * timeout. Meanwhile requests keep arriving, and a group commit keeps filling
 * the next group. Once it began, the transaction holds the lock: its
 * statements never wait. Single statements and read transactions keep
 * SQLite's own wait (a statement refused half-way must not be tried again by
 * hand: a read left open would pin an old snapshot). The busy timeout is set
 * back only when something that waits comes next, not after every write: a
 * group commit after a group commit (a busy server's writes) sets nothing,
 * where two `PRAGMA busy_timeout` statements around each `BEGIN IMMEDIATE`
 * cost about 12 µs of every commit.
 *
 * A file's WAL is checkpointed by the executor, not inside a commit: SQLite's
 * automatic checkpoint runs in the COMMIT that passes 1,000 pages, and with
 * several processes on one file the WAL is hardly ever restarted (a process
 * is nearly always reading an older snapshot somewhere), so from then on nearly
 * every commit of every process ran a checkpoint, two fsyncs in its group's
 * time. Instead, after {@linkcode CHECKPOINT_COMMITS} write commits (fewer when they are large:
 * {@linkcode CHECKPOINT_FRAMES}) a passive
 * checkpoint runs, and when the WAL still holds {@linkcode WAL_RESTART_FRAMES}
 * pages a restart is tried without waiting, so that the WAL starts over
 * whenever no other process is in it at that moment.
 *
 * The checkpoint runs on a second connection to the file in a worker thread
 * (`checkpoint_worker.ts`, started at the first checkpoint): its two fsyncs
 * (10-190 ms for about 1,000 pages) never hold the event loop. It is asked
 * for at the commit that reaches the count, never while one is in flight, and
 * its answer (the pages in the WAL and copied) sets the count to the next.
 * Where no worker thread starts (a runtime without `worker_threads`, a module
 * file missing from a single binary), the checkpoint runs on the connection
 * itself once the event-loop turn is over (the group's callers are answered
 * first), as it did before; that is logged once per process.
 *
 * @module
 */
import { BoundedMap } from "../cache/mod.ts";
// @ts-types="./libsql_binding.d.ts"
import Database from "libsql";
import {
  beginStatement,
  type Executor,
  type ResultSet,
  type SqlRow,
  type SqlValue,
  type Statement,
  statementOf,
  type Transaction,
  type TransactionMode,
} from "./executor.ts";
import type { NativeDatabase, NativeStatement } from "./libsql_binding.d.ts";
import { atIsolateEnd } from "./isolate_end.ts";
import { storageFailure } from "./storage_failure.ts";
import { checkpointWal, WAL_RESTART_FRAMES } from "./wal_checkpoint.ts";
import type { CheckpointResult } from "./wal_checkpoint.ts";
import type { CheckpointAnswer, CheckpointRequest, WriteFailure, WriteRequest } from "./checkpoint_worker.ts";
import { PLATFORM, type PlatformWorker, startWorker } from "../platform/mod.ts";

export { WAL_RESTART_FRAMES };

/** Prepared statements kept per connection, least recently used dropped first. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * The pauses between attempts at a file another process holds the write lock of, in milliseconds (the last one
 * repeats): 0 is the next turn of the event loop (a writer holds the lock for well under a millisecond).
 */
export const BUSY_PAUSES_MS: readonly number[] = [0, 0, 0, 1, 1, 2, 4];

/** Write commits of a connection to a file after which its WAL is checkpointed (on the next turn of the event loop), at most. */
export const CHECKPOINT_COMMITS = 100;

/**
 * WAL pages a checkpoint should find to copy (SQLite's own default): after each checkpoint the number of commits to the
 * next one is set from the pages the last ones wrote, so a connection whose commits are large (hundreds of rows) copies
 * about this many pages at a time, a few milliseconds of the event loop, rather than {@linkcode CHECKPOINT_COMMITS}
 * commits' worth (5,649 pages, 50-54 ms, for an app recording activity at 17,000 runs a second).
 */
export const CHECKPOINT_FRAMES = 1_000;

/**
 * When the next checkpoint is due, from what the last one found: after the commits that write about
 * {@linkcode CHECKPOINT_FRAMES} pages, at most {@linkcode CHECKPOINT_COMMITS}. The pages those commits wrote are the
 * WAL's growth since the last checkpoint, or all of it when the WAL started over since (it is smaller). A WAL copied whole
 * starts over at the next write, so it is counted from 0 then, or the pages written again up to its old size would read
 * as none; but only when nothing was committed while the checkpoint ran (on the connection itself, nothing can be): a
 * commit that began before the copy ended keeps the WAL from starting over, and counting it from 0 would read the whole
 * WAL as written by the next few commits, a checkpoint after every commit.
 *
 * @param walFrames The WAL's pages as last counted.
 * @param commits The write commits the checkpoint counted.
 * @param result What it found.
 * @param committedSince Whether the connection committed while the checkpoint ran.
 * @returns The WAL's pages to count from and the commits to the next checkpoint.
 */
export function nextCheckpoint(
  walFrames: number,
  commits: number,
  { frames, copied, restarted }: CheckpointResult,
  committedSince: boolean,
): { walFrames: number; every: number } {
  const written = frames >= walFrames ? frames - walFrames : frames;
  const startsOver = restarted || (copied === frames && !committedSince);
  return {
    walFrames: startsOver ? 0 : frames,
    every: Math.max(1, Math.min(CHECKPOINT_COMMITS, Math.floor(commits * CHECKPOINT_FRAMES / Math.max(1, written)))),
  };
}

/** Options of {@linkcode openNativeExecutor}. */
export interface NativeExecutorOptions {
  /** How long a statement waits for another connection's write lock, in milliseconds. */
  busyTimeoutMs: number;
  /** Told how long a call waited for another connection's write lock, in seconds, each time one did. */
  onLockWait?: (seconds: number) => void;
  /**
   * The module that checkpoints a file's WAL in a worker thread (default: `checkpoint_worker` beside this module);
   * `null` checkpoints on the connection itself, on the event loop.
   */
  checkpointWorker?: URL | null;
}

/**
 * The worker module: beside this one, `.ts` or `.js` as this module is; inside a single binary built by
 * `bun build --compile` (`scripts/compile_binary.ts`, whose modules all have the binary's own URL), the worker is an
 * entrypoint of its own, at its path from the repository's root.
 */
const CHECKPOINT_WORKER = /\.[jt]s$/.test(import.meta.url)
  ? new URL(`./checkpoint_worker${import.meta.url.slice(-3)}`, import.meta.url)
  : new URL("./core/db/checkpoint_worker.ts", import.meta.url);

/** A write batch sent to the worker, and its caller's promise. */
interface Aside {
  statements: readonly Statement[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A connection of the binding. */
type Connection = NativeDatabase;

/** A prepared statement, and whether it returns rows (asked once, not per run). */
interface Prepared {
  statement: NativeStatement;
  reader: boolean;
}

/**
 * Whether a URL names a database the native engine opens (`file:` or `:memory:`).
 *
 * @param url A libSQL URL.
 * @returns `true` for a local file or memory.
 */
export function isLocalUrl(url: string): boolean {
  return url === ":memory:" || url.startsWith("file:");
}

/**
 * Opens a local database on the native binding. A file's parent folder is
 * created when missing; a file gets WAL and `synchronous = NORMAL`, and its
 * checkpoints are run by the executor (`wal_autocheckpoint = 0`).
 *
 * @param url `:memory:`, `file:path`, `file:/absolute/path` or `file:///absolute/path`.
 * @param options The busy timeout.
 * @returns The executor.
 * @throws {Error} Saying what to fix when the database cannot be opened.
 */
export function openNativeExecutor(url: string, options: NativeExecutorOptions): Executor {
  const path = localPath(url);
  const memory = path === ":memory:";
  let db: Connection;
  try {
    if (!memory) createParentFolder(path);
    db = new Database(path, { timeout: options.busyTimeoutMs });
    db.prepare("SELECT 1").get([]);
    if (!memory) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA wal_autocheckpoint = 0");
    }
  } catch (error) {
    throw new Error(
      `Cannot open the database ${JSON.stringify(url)} (${path}): ${(error as Error).message ?? error}. ` +
        "Check that the path is right, that its folder can be created and written by this process, " +
        "and that the file is a SQLite database.",
      { cause: error },
    );
  }
  const worker = memory ? null : options.checkpointWorker === undefined ? CHECKPOINT_WORKER : options.checkpointWorker;
  return new NativeExecutor(db, memory, path, options.busyTimeoutMs, options.onLockWait, worker);
}

/**
 * The open connections of this process, by file: a commit through one
 * forgets the others' `data_version` of this turn, so connections within one
 * process see each other's commits at once (other processes: from the next turn).
 */
const connections = new Map<string, Set<NativeExecutor>>();

/** Whether this process has said that its checkpoints run on the event loop (said once). */
let checkpointsHereLogged = false;

class NativeExecutor implements Executor {
  readonly engine = "native";
  #db: Connection;
  #memory: boolean;
  #cache = new BoundedMap<string, Prepared>({ maxEntries: STATEMENT_CACHE_SIZE });
  #version: Prepared["statement"] | undefined;
  /** `data_version` as read in this event-loop turn, if it was. */
  #seen: number | undefined;
  /** Settles when the open transaction ends; `undefined` when none is open. */
  #transaction: Promise<unknown> | undefined;
  /** The gate of a write waiting for another process's write lock (nothing open yet), while it waits. */
  #lockWait: Promise<unknown> | undefined;
  /** Set by {@linkcode close}: from then on nothing reaches the binding. */
  #closed = false;
  /** Cancels the close at the isolate's end (see `isolate_end.ts`): a timer that outlives it gets an error, not a crash. */
  #forgetIsolateEnd: () => void;

  #path: string;
  /** How long a call waits for another connection's write lock, in milliseconds. */
  #busyTimeoutMs: number;
  #onLockWait: ((seconds: number) => void) | undefined;
  /** Write commits since the last checkpoint. */
  #commits = 0;
  /** Write commits between two checkpoints, set from the pages the last ones wrote. */
  #checkpointEvery = CHECKPOINT_COMMITS;
  /** The WAL's pages when it was last checkpointed. */
  #walFrames = 0;
  /** Whether a checkpoint was asked for and has not ended yet. */
  #checkpointPending = false;
  /** The write commits the checkpoint in flight counts. */
  #checkpointCommits = 0;
  /** The module of the worker that checkpoints, or `null`: checkpoints run on this connection. */
  #workerModule: URL | null;
  /** The worker that checkpoints; `undefined` until the first checkpoint, `null` when there is none. */
  #worker: PlatformWorker | null | undefined;
  /** Whether the connection's busy timeout is set (SQLite waits for another connection's lock), not 0. */
  #waits = true;
  /** The write batches sent to the worker and not answered yet, in the order sent (it answers in that order). */
  #asides: Aside[] = [];

  constructor(
    db: Connection,
    memory: boolean,
    path: string,
    busyTimeoutMs: number,
    onLockWait?: (seconds: number) => void,
    workerModule: URL | null = null,
  ) {
    this.#onLockWait = onLockWait;
    this.#workerModule = workerModule;
    this.#db = db;
    this.#memory = memory;
    this.#path = path;
    this.#busyTimeoutMs = busyTimeoutMs;
    const self = new WeakRef(this); // an executor nobody closes can still be collected
    this.#forgetIsolateEnd = atIsolateEnd(() => self.deref()?.close());
    if (memory) return;
    let set = connections.get(path);
    if (set === undefined) connections.set(path, set = new Set());
    set.add(this);
  }

  /**
   * The native connection, or an error once {@linkcode close} ran: a statement, a batch or a transaction that
   * arrives (or resumes) after the close never calls into the binding, whose handle may already be finalized.
   */
  get #binding(): Connection {
    if (this.#closed) throw new Error("The database is closed");
    return this.#db;
  }

  /** Whether a transaction is open on a connection that is still open. */
  get #inTransaction(): boolean {
    return !this.#closed && this.#db.inTransaction;
  }

  /** Forgets this turn's `data_version`, so the next look reads it. */
  forgetVersion(): void {
    this.#seen = undefined;
  }

  /**
   * After a commit: the other connections of this process to the same file look again, and a write commit counts
   * towards the next checkpoint.
   */
  #committed(write: boolean): void {
    if (write && !this.#memory && ++this.#commits >= this.#checkpointEvery && !this.#checkpointPending) {
      this.#checkpointPending = true;
      this.#askCheckpoint();
    }
    const set = connections.get(this.#path);
    if (set === undefined || set.size < 2) return;
    for (const other of set) if (other !== this) other.forgetVersion();
  }

  async execute(statement: string | Statement): Promise<ResultSet> {
    const read = isSelect(statement);
    // A read need not wait for a write of this connection that waits for another process's write lock: nothing is
    // open on the connection meanwhile (an SDK check's read is not held up behind the other nodes' commits).
    while (this.#transaction !== undefined && !(read && this.#transaction === this.#lockWait && !this.#inTransaction)) {
      await this.#transaction.catch(() => {});
    }
    if (read) return this.#read(statement);
    if (!this.#waits) this.#busyTimeout(true);
    const result = this.#run(statement);
    this.#committed(result.lastInsertRowid !== undefined); // a statement without rows (only those report a rowid)
    return result;
  }

  /**
   * Runs a `SELECT` with the busy timeout as it is: left at 0 by a write, it is set back only when the read is
   * refused (a WAL reader is refused only at its start, while another connection recovers the WAL, say: nothing was
   * read, and the statement is reset), rather than with a statement before the read and another before the next write.
   */
  #read(statement: string | Statement): ResultSet {
    try {
      return this.#run(statement);
    } catch (error) {
      if (this.#waits || storageFailure(error) !== "busy") throw error;
      this.#busyTimeout(true);
      return this.#run(statement);
    }
  }

  async batch(statements: readonly (string | Statement)[], mode: TransactionMode = "deferred"): Promise<ResultSet[]> {
    while (this.#transaction !== undefined) await this.#transaction.catch(() => {});
    const release = this.#begin(mode) ? undefined : await this.#beginWhenFree();
    // From BEGIN to COMMIT without yielding; rolled back when any statement fails.
    try {
      const results = statements.map((s) => this.#run(s));
      this.#binding.exec("COMMIT");
      this.#committed(mode !== "read");
      return results;
    } catch (error) {
      if (this.#inTransaction) this.#db.exec("ROLLBACK");
      throw error;
    } finally {
      release?.();
    }
  }

  /**
   * Begins a transaction. A write transaction's `BEGIN IMMEDIATE` does not wait for another connection's write lock.
   *
   * @returns `false` when another connection holds the write lock (nothing began).
   */
  #begin(mode: TransactionMode): boolean {
    if (mode !== "write" || this.#memory) {
      if (!this.#waits) this.#busyTimeout(true);
      this.#binding.exec(beginStatement(mode));
      return true;
    }
    // Left at 0 after the BEGIN: the transaction's statements hold the lock and never wait, and the next write's
    // BEGIN needs 0 again. Whatever waits sets the timeout back first.
    if (this.#waits) this.#busyTimeout(false);
    try {
      this.#binding.exec(beginStatement(mode));
      return true;
    } catch (error) {
      if (storageFailure(error) !== "busy") throw error;
      return false;
    }
  }

  /**
   * Sets the connection's busy timeout: the configured one (SQLite's own wait, for single statements and reads) or 0
   * (a write's `BEGIN IMMEDIATE`, a checkpoint: refused at once rather than blocking the process).
   *
   * @param waits Whether SQLite waits.
   */
  #busyTimeout(waits: boolean): void {
    this.#binding.exec(`PRAGMA busy_timeout = ${waits ? Math.floor(this.#busyTimeoutMs) : 0}`);
    this.#waits = waits;
  }

  /**
   * Begins a write transaction once another connection's write lock is released: tried again after each of
   * {@linkcode BUSY_PAUSES_MS}, the event loop running meanwhile, until the busy timeout is over, then `SQLITE_BUSY` is
   * thrown. This connection's other callers wait from the first try until the caller calls the function returned (once
   * its transaction has ended, or another wait stands in for it), so none of their statements runs inside it.
   *
   * @returns Lets this connection's other callers go on.
   */
  async #beginWhenFree(): Promise<() => void> {
    const started = PLATFORM.elapsed();
    let resolve!: () => void;
    const gate = new Promise<void>((done) => resolve = done);
    this.#transaction = this.#lockWait = gate;
    const release = () => {
      if (this.#lockWait === gate) this.#lockWait = undefined;
      if (this.#transaction === gate) this.#transaction = undefined;
      resolve();
    };
    let began = false;
    try {
      for (let tries = 0;; tries++) {
        await pause(BUSY_PAUSES_MS[Math.min(tries, BUSY_PAUSES_MS.length - 1)]);
        if (this.#begin("write")) {
          began = true;
          return release;
        }
        if (PLATFORM.elapsed() - started >= this.#busyTimeoutMs) {
          // SQLite's own error, as a wait inside SQLite would have ended.
          if (this.#waits) this.#busyTimeout(false);
          this.#binding.exec(beginStatement("write"));
          if (this.#inTransaction) { // freed at the last moment
            began = true;
            return release;
          }
        }
      }
    } finally {
      if (!began) release();
      this.#onLockWait?.((PLATFORM.elapsed() - started) / 1000);
    }
  }

  async transaction<T>(work: (tx: Transaction) => Promise<T>, mode: TransactionMode = "write"): Promise<T> {
    while (this.#transaction !== undefined) await this.#transaction.catch(() => {});
    const release = this.#begin(mode) ? undefined : await this.#beginWhenFree();
    let open = true;
    const tx: Transaction = {
      execute: (statement) => {
        if (!open) return Promise.reject(new Error("The transaction has ended"));
        try {
          return Promise.resolve(this.#run(statement));
        } catch (error) {
          return Promise.reject(error);
        }
      },
    };
    const running = (async () => {
      try {
        const result = await work(tx);
        this.#binding.exec("COMMIT");
        this.#committed(mode !== "read");
        return result;
      } catch (error) {
        if (this.#inTransaction) this.#db.exec("ROLLBACK");
        throw error;
      } finally {
        open = false;
      }
    })();
    this.#transaction = running;
    release?.(); // those waiting for the lock now wait for the transaction
    try {
      return await running;
    } finally {
      this.#transaction = undefined;
    }
  }

  /**
   * Runs a write batch on the worker's connection (started on the first call), off the event loop; where there is no
   * worker, on this connection ({@linkcode batch}). Its commit counts towards the next checkpoint, as this connection's.
   */
  writeAside(statements: readonly Statement[]): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("The database is closed"));
    const worker = this.#memory ? null : this.#checkpointer();
    if (worker === null) return this.batch(statements, "write").then(() => {});
    return new Promise((resolve, reject) => {
      // The process waits for the batches under way (a script's last `close()` writes its records before it exits).
      if (this.#asides.push({ statements, resolve, reject }) === 1) worker.keepAlive(true);
      worker.postMessage(writeRequest(statements) satisfies CheckpointRequest);
    });
  }

  /** The worker's answer to the oldest write batch it was sent. */
  #writtenAside(answer: { written: true } | { writeFailed: WriteFailure }): void {
    const aside = this.#asides.shift();
    if (aside === undefined) return;
    if (this.#asides.length === 0) this.#worker?.keepAlive(false); // once closed or failed, it is ending
    if ("writeFailed" in answer) {
      return aside.reject(Object.assign(new Error(answer.writeFailed.message), answer.writeFailed));
    }
    if (!this.#closed) {
      this.forgetVersion(); // its commit is another connection's: this turn's data_version is out of date
      this.#committed(true);
    }
    aside.resolve();
  }

  /**
   * The write batches the worker will not answer (it could not open the file, or has gone): run here, in order, or
   * refused once this connection is closed.
   */
  #asidesHere(): void {
    const asides = this.#asides;
    this.#asides = [];
    for (const { statements, resolve, reject } of asides) {
      if (this.#closed) reject(new Error("The database is closed"));
      else this.batch(statements, "write").then(() => resolve(), reject);
    }
  }

  /**
   * Has the WAL checkpointed ({@linkcode checkpointWal}): by the worker, started on the first call, or where there is
   * none, on this connection once the event-loop turn is over.
   */
  #askCheckpoint(): void {
    const worker = this.#checkpointer();
    if (worker === null) {
      nextTurn(() => this.#checkpointHere());
      return;
    }
    this.#checkpointCommits = this.#commits;
    this.#commits = 0;
    worker.postMessage("checkpoint" satisfies CheckpointRequest);
  }

  /** The worker that checkpoints, started when there is none yet; `null` where none starts. */
  #checkpointer(): PlatformWorker | null {
    if (this.#worker !== undefined) return this.#worker;
    let worker: PlatformWorker | undefined;
    let reason = "this runtime has no worker threads";
    try {
      if (this.#workerModule !== null) worker = startWorker(this.#workerModule);
      else reason = "none was asked for";
    } catch (error) {
      reason = `${(error as Error).message ?? error}`;
    }
    if (worker === undefined) {
      this.#checkpointHereFromNowOn(reason);
      return null;
    }
    worker.onMessage((answer) => this.#answered(answer as CheckpointAnswer));
    worker.onExit((error) => {
      if (this.#worker === worker) this.#workerFailed(`the worker ended (${(error as Error)?.message ?? "no error"})`);
      this.#asidesHere();
    });
    worker.postMessage({ path: this.#path, busyTimeoutMs: this.#busyTimeoutMs } satisfies CheckpointRequest);
    return this.#worker = worker;
  }

  /** The worker's answer. */
  #answered(answer: CheckpointAnswer): void {
    if ("written" in answer || "writeFailed" in answer) return this.#writtenAside(answer);
    if (this.#closed || "ready" in answer) return;
    if ("failed" in answer) return this.#workerFailed("the worker could not open the file");
    this.#checkpointPending = false;
    // Busy (another process checkpoints or writes) or an I/O error: the next commits ask again.
    if (!("busy" in answer)) this.#counted(this.#checkpointCommits, answer, this.#commits > 0);
  }

  /** The worker could not start or has gone: its checkpoint in flight runs here, and so do all the next ones. */
  #workerFailed(reason: string): void {
    if (this.#closed) return;
    this.#worker?.postMessage("close" satisfies CheckpointRequest);
    this.#checkpointHereFromNowOn(reason);
    this.#asidesHere();
    if (!this.#checkpointPending) return;
    this.#commits += this.#checkpointCommits;
    nextTurn(() => this.#checkpointHere());
  }

  /** From now on the checkpoints run on this connection; the process says so the first time, with `reason`. */
  #checkpointHereFromNowOn(reason: string): void {
    this.#worker = null;
    if (checkpointsHereLogged || this.#workerModule === null) return;
    checkpointsHereLogged = true;
    console.warn(
      `WAL checkpoints and set-aside writes (activity records) of file databases run on the event loop: no worker thread (${reason}).`,
    );
  }

  /**
   * Checkpoints the WAL on this connection. Skipped while a transaction is open on it (the next write commit asks
   * again). A failure is left to the statements that follow: a checkpoint changes no data, and nothing awaits this one.
   */
  #checkpointHere(): void {
    this.#checkpointPending = false;
    if (this.#closed || this.#transaction !== undefined || this.#db.inTransaction) return;
    const commits = this.#commits;
    this.#commits = 0;
    try {
      if (this.#waits) this.#busyTimeout(false); // left at 0, as after a write's BEGIN
      this.#counted(commits, checkpointWal(this.#db), false);
    } catch {
      // Busy (another process checkpoints or writes) or an I/O error the next statement meets; thrown from here, at
      // the end of a turn, it would end the process.
    }
  }

  /**
   * Sets the commits to the next checkpoint from what the last one found ({@linkcode nextCheckpoint}).
   *
   * @param commits The write commits that checkpoint counted.
   * @param result What it found.
   * @param committedSince Whether this connection committed while it ran (a worker's checkpoint).
   */
  #counted(commits: number, result: CheckpointResult, committedSince: boolean): void {
    const next = nextCheckpoint(this.#walFrames, commits, result, committedSince);
    this.#walFrames = next.walFrames;
    this.#checkpointEvery = next.every;
  }

  /**
   * Read at most once per event-loop turn (reset by `setImmediate`): the
   * requests handled in one turn were read from their sockets together, so
   * they are concurrent with another process's commit made meanwhile;
   * requests of the following turns read again (the bound is one turn, two
   * when the first read happened in the runtime's check phase). A commit by
   * another connection of this process resets it at once.
   */
  dataVersion(): number | null {
    if (this.#memory) return 0;
    if (this.#seen !== undefined) return this.#seen;
    this.#version ??= this.#binding.prepare("PRAGMA data_version").raw(true);
    let row: [number];
    try {
      row = this.#version.get([]) as [number];
    } catch (error) {
      // Read without the busy timeout (left at 0 by a write) and refused: read again, waiting as SQLite's reads do.
      if (this.#waits || storageFailure(error) !== "busy") throw error;
      this.#busyTimeout(true);
      row = this.#version.get([]) as [number];
    }
    const seen = Number(row[0]);
    this.#seen = seen;
    nextTurn(() => this.#seen = undefined);
    return seen;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#forgetIsolateEnd();
    connections.get(this.#path)?.delete(this);
    if (connections.get(this.#path)?.size === 0) connections.delete(this.#path);
    this.#cache.clear();
    this.#version = undefined;
    this.#worker?.postMessage("close" satisfies CheckpointRequest); // it closes its connection and ends
    this.#worker = null;
    try {
      // The binding closes a connection only once its last statement is collected: a transaction left open here would
      // hold the file's write lock until then.
      if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
    } finally {
      this.#db.close();
    }
  }

  #run(statement: string | Statement): ResultSet {
    if (this.#closed) throw new Error("The database is closed");
    const { sql, args } = statementOf(statement);
    const prepared = this.#prepare(sql);
    const values = args as SqlValue[];
    if (prepared.reader) {
      const rows = prepared.statement.all(values) as SqlRow[];
      return { rows, rowsAffected: rows.length };
    }
    const { changes, lastInsertRowid } = prepared.statement.run(values);
    return { rows: [], rowsAffected: Number(changes), lastInsertRowid: Number(lastInsertRowid) };
  }

  #prepare(sql: string): Prepared {
    const cached = this.#cache.get(sql);
    if (cached !== undefined) return cached;
    const statement = this.#binding.prepare(sql);
    const prepared = { statement, reader: statement.reader };
    this.#cache.set(sql, prepared);
    return prepared;
  }
}

/**
 * A write batch as the worker takes it ({@linkcode WriteRequest}): when every argument is text, one string and their
 * lengths.
 */
function writeRequest(statements: readonly Statement[]): WriteRequest {
  const write: string[] = [];
  const sizes: number[] = [];
  const args: SqlValue[] = [];
  let text = true;
  for (const { sql, args: own = [] } of statements) {
    write.push(sql);
    sizes.push(own.length);
    for (const arg of own) {
      if (typeof arg !== "string") text = false;
      args.push(arg);
    }
  }
  if (!text) return { write, sizes, args };
  const lengths = new Uint32Array(args.length);
  for (let i = 0; i < args.length; i++) lengths[i] = (args[i] as string).length;
  return { write, sizes, args: { text: args.join(""), lengths } };
}

/** Whether a statement is a `SELECT` (it reads, and never writes). */
function isSelect(statement: string | Statement): boolean {
  return /^\s*select\b/i.test(typeof statement === "string" ? statement : statement.sql);
}

/** Waits `ms` milliseconds, or for 0 the next turn of the event loop (after its I/O). */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => ms === 0 ? nextTurn(resolve) : setTimeout(resolve, ms));
}

/** Runs `task` once the current event-loop turn is over (`setImmediate` where the runtime has it). */
function nextTurn(task: () => void): void {
  const immediate = (globalThis as { setImmediate?: (task: () => void) => unknown }).setImmediate;
  if (immediate) immediate(task);
  else setTimeout(task, 0);
}

/** The file path (or `:memory:`) a local URL names. */
function localPath(url: string): string {
  if (url === ":memory:" || url === "file::memory:") return ":memory:";
  const rest = url.slice("file:".length).split("?")[0];
  if (rest.startsWith("//")) return decodeURIComponent(new URL(url).pathname);
  return decodeURIComponent(rest);
}

/**
 * Creates the folder a database file goes in (`0700`, readable by this user
 * only), and the file itself when missing (`0600`; SQLite gives its `-wal` and
 * `-shm` the file's mode). The binding opens files through the host's file
 * system, which SQLite does not create folders in; this is the one place
 * storage touches it, through the runtime's built-in `fs` module (Deno, Bun
 * and Node all provide `process.getBuiltinModule`). Existing folders and files
 * keep the mode their operator gave them.
 */
function createParentFolder(path: string): void {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const fs = host?.getBuiltinModule?.("fs") as
    | {
      mkdirSync(path: string, options: { recursive: boolean; mode: number }): void;
      writeFileSync(path: string, data: string, options: { flag: string; mode: number }): void;
    }
    | undefined;
  const slash = path.lastIndexOf("/");
  if (slash > 0) fs?.mkdirSync(path.slice(0, slash), { recursive: true, mode: 0o700 });
  try {
    // "wx": only when it does not exist yet (an empty file is an empty database).
    fs?.writeFileSync(path, "", { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
}
