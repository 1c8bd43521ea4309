/**
 * Which database the command line opens, and making room for a file database.
 *
 * @module
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The database of `npm run cloud` and of every command without `--db` or `SVC_DB_URL`. */
export const DEFAULT_DB_URL = "file:./data/svc.db";

/** A database to open. */
export interface DatabaseTarget {
  /** The libSQL URL. */
  url: string;
  /** `SVC_DB_AUTH_TOKEN`, if set. */
  authToken?: string;
}

/**
 * The database from `--db`, else `SVC_DB_URL`, else the default; the auth
 * token from `SVC_DB_AUTH_TOKEN`. Creates the folder of a `file:` database (`0700`).
 *
 * @param flag The `--db` value.
 * @returns The URL and token.
 */
export function databaseTarget(flag: string | undefined): DatabaseTarget {
  const url = flag ?? (process.env.SVC_DB_URL || DEFAULT_DB_URL);
  const path = filePath(url);
  // Readable by this user only: the database holds password hashes, TOTP secrets and sessions.
  if (path !== null) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  return { url, authToken: process.env.SVC_DB_AUTH_TOKEN || undefined };
}

/**
 * A URL safe to print: no query string (it may carry a token) and no credentials.
 *
 * @param url The libSQL URL.
 * @returns The URL without secrets.
 */
export function displayUrl(url: string): string {
  const bare = url.split("?")[0];
  return bare.replace(/\/\/[^/@]*@/, "//");
}

/**
 * The path of a `file:` database, `null` for `:memory:` and remote URLs.
 *
 * @param url The libSQL URL.
 * @returns The file's path, or `null`.
 */
export function filePath(url: string): string | null {
  if (!url.startsWith("file:") || url.includes(":memory:")) return null;
  const bare = url.split("?")[0];
  return bare.startsWith("file://") ? fileURLToPath(bare) : bare.slice("file:".length);
}
