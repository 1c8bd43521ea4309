/**
 * Opening a libSQL database (a URL or an injected client) and applying
 * numbered migrations to it.
 *
 * @module
 */
import { type Client, createClient } from "@libsql/client";

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
}

/** An open database, and whether this toolkit opened it (and so must close it). */
export interface OpenDatabase {
  /** The client. */
  client: Client;
  /** `true` when the client was created here from a URL. */
  owned: boolean;
}

/**
 * Opens a database. A `file:` database gets WAL and a busy timeout; an
 * injected Client is used as it is and is not closed by the toolkit.
 *
 * @param input A URL or a Client.
 * @param options Auth token and busy timeout.
 * @returns The client and whether it is owned.
 */
export async function openDatabase(input: DatabaseInput, options: OpenDatabaseOptions = {}): Promise<OpenDatabase> {
  if (typeof input !== "string") return { client: input as unknown as Client, owned: false };
  const url = input;
  const client = createClient({ url, authToken: options.authToken, timeout: options.busyTimeoutMs ?? 5000 });
  if (url.startsWith("file:") && !url.includes(":memory:")) {
    await client.execute("PRAGMA journal_mode = WAL");
    await client.execute("PRAGMA synchronous = NORMAL");
  }
  return { client, owned: true };
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
 * Brings a database to the newest schema of `migrations`, one atomic batch per
 * migration. Safe when several processes start at once. Refuses a database
 * whose schema is newer than the code knows.
 *
 * @param client The database.
 * @param table The table that records applied versions (one per side).
 * @param migrations The ordered migrations.
 * @returns The schema version after migrating.
 * @throws {Error} When the database is newer than `migrations`.
 */
export async function migrate(client: Client, table: string, migrations: readonly Migration[]): Promise<number> {
  const latest = migrations.length;
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`Migration ${m.name} must have version ${i + 1}`);
  });
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  );
  for (;;) {
    const current = await schemaVersion(client, table);
    if (current > latest) {
      throw new Error(
        `The database schema (${table}) is at version ${current}, newer than this build knows (${latest}). ` +
          "Upgrade @svc/agent-access before using this database.",
      );
    }
    if (current === latest) return current;
    const next = migrations[current];
    try {
      await client.batch([
        ...next.statements,
        {
          sql: `INSERT INTO ${table} (version, name, applied_at) VALUES (?, ?, ?)`,
          args: [next.version, next.name, new Date().toISOString()],
        },
      ], "write");
    } catch (error) {
      // Another process may have applied the same version first: look again.
      if (await schemaVersion(client, table) <= current) throw error;
    }
  }
}

/**
 * The schema version recorded in `table`, 0 for an empty database.
 *
 * @param client The database.
 * @param table The migrations table.
 * @returns The highest applied version.
 */
export async function schemaVersion(client: Client, table: string): Promise<number> {
  const rs = await client.execute(`SELECT COALESCE(MAX(version), 0) AS v FROM ${table}`);
  return Number(rs.rows[0].v);
}
