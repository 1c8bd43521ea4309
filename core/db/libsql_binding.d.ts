// The part of the `libsql` npm package (the native binding) that the native engine uses, typed here so that
// its own declarations (which pull in @types/node) stay out of this package's types.

/** A prepared statement. */
export interface NativeStatement {
  /** Whether it returns rows. */
  readonly reader: boolean;
  /** Runs it and returns every row. */
  all(params: unknown[]): unknown[];
  /** Runs it and returns the first row. */
  get(params: unknown[]): unknown;
  /** Runs a statement without rows. */
  run(params: unknown[]): { changes: number; lastInsertRowid: number | bigint };
  /** Rows as arrays instead of objects. */
  raw(toggle?: boolean): NativeStatement;
}

/** A connection. */
export interface NativeDatabase {
  /** Whether a transaction is open. */
  readonly inTransaction: boolean;
  /** Prepares a statement. */
  prepare(sql: string): NativeStatement;
  /** Runs SQL without arguments. */
  exec(sql: string): NativeDatabase;
  /** Closes the connection. */
  close(): void;
}

/** Opens a connection to a file (or `:memory:`). */
declare const Database: new (path: string, options?: { timeout?: number }) => NativeDatabase;
export default Database;
