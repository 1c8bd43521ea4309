/**
 * `backup --to FILE` and `restore --from FILE`: a consistent copy of a live `file:` database (`VACUUM INTO`, which
 * reads one snapshot through SQLite, the WAL included, while the cloud goes on serving), and its checked installation
 * (`PRAGMA integrity_check`, then the schema version against what this build knows) in place of a stopped cloud's file.
 *
 * @module
 */
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { openDatabase, schemaVersion } from "../../core/db/mod.ts";
import { CLOUD_MIGRATIONS_TABLE, cloudMigrations } from "../database/mod.ts";
import { type DatabaseTarget, displayUrl, filePath } from "./database_url.ts";
import { CommandError, type CommandOutput } from "./project_commands.ts";

/**
 * Writes a consistent copy of the database to `to`, checks it, and reports its size and schema version.
 *
 * @param target The live database (a `file:` URL).
 * @param to The backup file to create; it must not exist.
 * @returns What to print.
 * @throws {CommandError} `USAGE` without `--to` or for a remote database, `EXISTS` when `to` exists.
 */
export async function runBackup(target: DatabaseTarget, to: string | undefined): Promise<CommandOutput> {
  if (to === undefined || to === "") throw new CommandError("USAGE", "backup needs --to FILE (a new file)");
  const source = localFile(target, "backup");
  const path = resolve(to);
  if (existsSync(path)) {
    throw new CommandError("EXISTS", `${path} exists: choose a new file (a dated name) or delete it first`);
  }
  if (!existsSync(dirname(path))) throw new CommandError("USAGE", `the folder of ${path} does not exist`);
  const db = await openDatabase(target.url, { authToken: target.authToken });
  try {
    await db.execute({ sql: "VACUUM INTO ?", args: [path] });
  } finally {
    db.close();
  }
  const version = await checkedVersion(path);
  const bytes = statSync(path).size;
  return {
    json: { ok: true, from: displayUrl(target.url), to: path, bytes, schemaVersion: version },
    text: `Backed up ${source} to ${path} (${bytes} bytes, schema version ${version}, integrity ok).`,
  };
}

/**
 * Checks a backup and installs it as the database at `target`: written beside it first, then renamed over it, the old
 * file's WAL and shared-memory files removed. The cloud on `target` must be stopped; pending migrations apply when it
 * starts.
 *
 * @param target Where to install (a `file:` URL).
 * @param from The backup file.
 * @param force Whether an existing database at `target` may be replaced.
 * @returns What to print.
 * @throws {CommandError} `USAGE`, `NOT_FOUND`, `EXISTS` (without `--force`), `CORRUPT` or `SCHEMA_TOO_NEW`.
 */
export async function runRestore(
  target: DatabaseTarget,
  from: string | undefined,
  force: boolean,
): Promise<CommandOutput> {
  if (from === undefined || from === "") throw new CommandError("USAGE", "restore needs --from FILE (a backup)");
  const path = localFile(target, "restore");
  const backup = resolve(from);
  if (!existsSync(backup)) throw new CommandError("NOT_FOUND", `${backup} does not exist`);
  const version = await checkedVersion(backup);
  if (existsSync(path) && !force) {
    throw new CommandError(
      "EXISTS",
      `${path} exists: stop the cloud that serves it, then run restore again with --force to replace it`,
    );
  }
  const staging = `${path}.restoring`;
  copyFileSync(backup, staging);
  for (const suffix of ["-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
  renameSync(staging, path);
  return {
    json: { ok: true, from: backup, to: displayUrl(target.url), schemaVersion: version },
    text: `Restored ${backup} to ${path} (schema version ${version}, integrity ok). Start the cloud on it: ` +
      "pending migrations apply then.",
  };
}

function localFile(target: DatabaseTarget, command: string): string {
  const path = filePath(target.url);
  if (path === null) {
    throw new CommandError(
      "USAGE",
      `${command} works on a file: database; ${displayUrl(target.url)} is not one ` +
        "(a remote database such as Turso has its own point-in-time restore: use it)",
    );
  }
  return path;
}

/** Opens a backup, checks its integrity and returns its cloud schema version, refusing one this build cannot run. */
async function checkedVersion(path: string): Promise<number> {
  let db;
  try {
    db = await openDatabase(`file:${path}`);
  } catch (error) {
    throw new CommandError("CORRUPT", `${path} is not a database: ${(error as Error).message}`);
  }
  try {
    let verdict: string;
    try {
      verdict = String((await db.execute("PRAGMA integrity_check")).rows[0]?.integrity_check);
    } catch (error) {
      throw new CommandError("CORRUPT", `${path} is not a readable database: ${(error as Error).message}`);
    }
    if (verdict !== "ok") throw new CommandError("CORRUPT", `${path} fails its integrity check: ${verdict}`);
    let version: number;
    try {
      version = await schemaVersion(db, CLOUD_MIGRATIONS_TABLE);
    } catch {
      throw new CommandError("CORRUPT", `${path} is not a cloud database (no ${CLOUD_MIGRATIONS_TABLE} table)`);
    }
    if (version < 1) throw new CommandError("CORRUPT", `${path} holds no cloud schema`);
    if (version > cloudMigrations.length) {
      throw new CommandError(
        "SCHEMA_TOO_NEW",
        `${path} is at schema version ${version}, newer than this build knows (${cloudMigrations.length}): ` +
          "upgrade @svc/agent-access before restoring it",
      );
    }
    return version;
  } finally {
    db.close();
  }
}
