/**
 * The one interface every storage query runs through, whichever engine is
 * behind it: the native `libsql` binding (local files and `:memory:`) or
 * `@libsql/client` (remote databases and injected clients). The SQL is
 * written once, against this.
 *
 * @module
 */

/** A value bound to a `?` placeholder or read from a column. */
export type SqlValue = string | number | bigint | null | Uint8Array | ArrayBuffer;

/** One statement and its positional arguments. */
export interface Statement {
  /** The SQL, with `?` placeholders. */
  sql: string;
  /** The values of the placeholders, in order. */
  args?: readonly SqlValue[];
}

/** A row: column name → value. */
export type SqlRow = Readonly<Record<string, SqlValue>>;

/** What one statement returned. */
export interface ResultSet {
  /** The rows (empty for a statement without a result). */
  rows: SqlRow[];
  /** Rows changed by an INSERT, UPDATE or DELETE (with RETURNING: the rows returned). */
  rowsAffected: number;
  /**
   * After an INSERT without RETURNING that added a row (`rowsAffected` > 0): the rowid of the
   * last row it added (an `INTEGER PRIMARY KEY`). Otherwise absent or meaningless (SQLite keeps
   * the connection's previous value when nothing was inserted).
   */
  lastInsertRowid?: number;
}

/**
 * How a batch or transaction begins: `write` takes the write lock at once
 * (read-modify-write), `read` only reads, `deferred` lets SQLite decide.
 */
export type TransactionMode = "write" | "read" | "deferred";

/** The statements available inside {@linkcode Executor.transaction}. */
export interface Transaction {
  /**
   * Runs one statement inside the transaction.
   *
   * @param statement SQL text or a statement with arguments.
   * @returns Its result.
   */
  execute(statement: string | Statement): Promise<ResultSet>;
}

/** Which engine runs the statements. */
export type Engine = "native" | "client";

/** A database connection that runs statements, batches and transactions. */
export interface Executor {
  /** `native` for local files and `:memory:`, `client` for `@libsql/client`. */
  readonly engine: Engine;
  /**
   * Runs one statement.
   *
   * @param statement SQL text or a statement with arguments.
   * @returns Its result.
   */
  execute(statement: string | Statement): Promise<ResultSet>;
  /**
   * Runs statements atomically, in one transaction.
   *
   * @param statements The statements, in order.
   * @param mode How the transaction begins (default `deferred`).
   * @returns One result per statement.
   */
  batch(statements: readonly (string | Statement)[], mode?: TransactionMode): Promise<ResultSet[]>;
  /**
   * Runs `work` in one transaction: committed when it resolves, rolled back
   * when it throws. Other statements on this executor wait meanwhile.
   *
   * @param work What to run, given the transaction.
   * @param mode How the transaction begins (default `write`).
   * @returns What `work` returned.
   */
  transaction<T>(work: (tx: Transaction) => Promise<T>, mode?: TransactionMode): Promise<T>;
  /**
   * Runs write statements atomically, in one write transaction, off the event loop where the engine can: a file's
   * native executor runs them on its worker thread's connection (`checkpoint_worker.ts`), or here where no worker
   * starts. Absent (remote databases): callers use {@linkcode Executor.batch}.
   *
   * @param statements The statements, in order.
   * @returns Settles once they are committed, and readable from this executor.
   */
  writeAside?(statements: readonly Statement[]): Promise<void>;
  /**
   * A number that changes when another connection may have committed since
   * the last call: `PRAGMA data_version` on a local file, always 0 for
   * `:memory:` (no other connection can see it), `null` when the engine
   * cannot tell (a remote database: callers then bound their staleness by time).
   *
   * @returns The version, or `null`.
   */
  dataVersion(): number | null;
  /** Closes the connection (a no-op for an injected client, which its owner closes). */
  close(): void;
}

/**
 * Normalises a statement given as text or as an object.
 *
 * @param statement SQL text or a statement.
 * @returns The SQL and its arguments.
 */
export function statementOf(statement: string | Statement): { sql: string; args: readonly SqlValue[] } {
  return typeof statement === "string"
    ? { sql: statement, args: [] }
    : { sql: statement.sql, args: statement.args ?? [] };
}

/**
 * The statement that begins a transaction in a mode.
 *
 * @param mode The mode.
 * @returns `BEGIN IMMEDIATE` for writes, `BEGIN DEFERRED` otherwise.
 */
export function beginStatement(mode: TransactionMode): string {
  return mode === "write" ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED";
}
