/**
 * Opening a libSQL database (a URL or an injected client) as an
 * {@linkcode Executor}, and applying numbered migrations to it.
 *
 * @module
 */
import { type Client, createClient } from "@libsql/client";
import { clientExecutor } from "./client_executor.ts";
import type { Executor } from "./executor.ts";
import { isLocalUrl, openNativeExecutor } from "./native_executor.ts";
import { PLATFORM } from "../platform/mod.ts";

/**
 * A `@libsql/client` Client, named by the members the toolkit uses so that
 * public signatures do not depend on the client's own types.
 */
export interface LibsqlClient {
  /** Runs one statement. */
  execute(...args: never[]): Promise<unknown>;
  /** Runs statements atomically. */
  batch(...args: never[]): Promise<unknown>;
  /** Closes the client. */
  close(): void;
}

/** A libSQL URL (`file:…`, `:memory:`, `libsql://…`, `http://…`) or a `@libsql/client` Client. */
export type DatabaseInput = string | LibsqlClient;

/** Options for {@linkcode openDatabase}. */
export interface OpenDatabaseOptions {
  /** Auth token for a remote database (Turso). */
  authToken?: string;
  /** Busy timeout for `file:` databases, in milliseconds (default 5000). */
  busyTimeoutMs?: number;
  /** Told how long a call on a `file:` database waited for another process's write lock, in seconds, each time one did. */
  onLockWait?: (seconds: number) => void;
}

/**
 * Opens a database. `file:` and `:memory:` run on the native binding (a
 * file's folder is created when missing, and it gets WAL and a busy
 * timeout); remote URLs run on `@libsql/client`; an injected Client is used
 * as it is and is not closed by the executor.
 *
 * @param input A URL or a Client.
 * @param options Auth token and busy timeout.
 * @returns The executor.
 * @throws {Error} Saying what to fix when a local database cannot be opened.
 */
export function openDatabase(input: DatabaseInput, options: OpenDatabaseOptions = {}): Promise<Executor> {
  try {
    if (typeof input !== "string") return Promise.resolve(clientExecutor(input as unknown as Client, false));
    const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
    if (isLocalUrl(input)) {
      return Promise.resolve(openNativeExecutor(input, { busyTimeoutMs, onLockWait: options.onLockWait }));
    }
    return Promise.resolve(
      clientExecutor(createClient({ url: input, authToken: options.authToken, timeout: busyTimeoutMs }), true),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}

/** One numbered schema change. Versions start at 1 and have no gaps. */
export interface Migration {
  /** The schema version this migration produces. */
  version: number;
  /** A short description. */
  name: string;
  /** The statements, applied atomically together with the version record. */
  statements: string[];
}

/**
 * The executor behind a database given either way (tests and tools pass a
 * `@libsql/client` Client directly).
 *
 * @param db An executor or a Client.
 * @returns An executor (one that never closes an injected client).
 */
export function executorOf(db: Executor | LibsqlClient): Executor {
  return "engine" in db ? db : clientExecutor(db as unknown as Client, false);
}

/**
 * Brings a database to the newest schema of `migrations`, one atomic batch per
 * migration. Safe when several processes start at once. Refuses a database
 * whose schema is newer than the code knows.
 *
 * @param db The database.
 * @param table The table that records applied versions (one per side).
 * @param migrations The ordered migrations.
 * @returns The schema version after migrating.
 * @throws {Error} When the database is newer than `migrations`.
 */
export async function migrate(
  db: Executor | LibsqlClient,
  table: string,
  migrations: readonly Migration[],
): Promise<number> {
  const executor = executorOf(db);
  const latest = migrations.length;
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`Migration ${m.name} must have version ${i + 1}`);
  });
  await executor.execute(
    `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  for (;;) {
    const current = await schemaVersion(executor, table);
    if (current > latest) {
      throw new Error(
        `The database schema (${table}) is at version ${current}, newer than this build knows (${latest}). ` +
          "Upgrade @svc/agent-access before using this database.",
      );
    }
    if (current === latest) return current;
    const next = migrations[current];
    try {
      await executor.batch([
        ...next.statements,
        {
          sql: `INSERT INTO ${table} (version, name, applied_at) VALUES (?, ?, ?)`,
          args: [next.version, next.name, new Date(PLATFORM.now()).toISOString()],
        },
      ], "write");
    } catch (error) {
      // Another process may have applied the same version first: look again.
      if (await schemaVersion(executor, table) <= current) throw error;
    }
  }
}

/**
 * The schema version recorded in `table`, 0 for an empty database.
 *
 * @param db The database.
 * @param table The migrations table.
 * @returns The highest applied version.
 */
export async function schemaVersion(db: Executor | LibsqlClient, table: string): Promise<number> {
  const rs = await executorOf(db).execute(`SELECT COALESCE(MAX(version), 0) AS v FROM ${table}`);
  return Number(rs.rows[0].v);
}
