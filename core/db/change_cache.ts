/**
 * A bounded in-process cache of rows that is dropped whenever the database
 * may have changed under it. On a local file, `PRAGMA data_version` (one
 * prepared statement, a few microseconds) tells whether another connection
 * committed since the last look; `:memory:` has no other connection; on a
 * remote database (or an injected `@libsql/client` Client) nothing tells, so
 * entries live at most {@linkcode REMOTE_STALENESS_MS}, or are not kept at all
 * when the caller cannot allow any staleness (`remote: "uncached"`: every read
 * goes to the database, as before the cache). Writes made through the same executor
 * update the cache directly (the caller does that with `set` or `delete`).
 *
 * A cache whose rows change rarely while the rest of the file changes all the
 * time (a project's secret, beside thousands of events a second committed by
 * other nodes) can name a cheap version of what it holds (`changes`: a counter
 * that triggers bump whenever such a row changes): when another connection has
 * committed, the cache reads that version once, for every caller of the turn,
 * and forgets its entries only when it moved.
 *
 * @module
 */
import type { Executor } from "./executor.ts";
import { BoundedMap } from "../cache/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** How long a cached row of a remote database may be served, at most, in milliseconds. */
export const REMOTE_STALENESS_MS = 1_000;

/** A cache that forgets everything when the database changes under it. */
export interface ChangeCache<K, V> {
  /**
   * The cached value when the database has not changed since it was read;
   * otherwise reads it with `load` and caches it, unless a write or a drop
   * happened while it was being read (then the next call reads again).
   *
   * @param key The key.
   * @param load Reads the value from the database.
   * @returns The value.
   */
  read(key: K, load: () => Promise<V>): Promise<V>;
  /**
   * Caches a value this process has just written.
   *
   * @param key The key.
   * @param value The value.
   */
  set(key: K, value: V): void;
  /**
   * Forgets one value (after a write that changed it), including any read of it in flight.
   *
   * @param key The key.
   */
  delete(key: K): void;
}

/** Options of {@linkcode createChangeCache}. */
export interface ChangeCacheOptions {
  /** Entries kept at most; the oldest go first. */
  size: number;
  /**
   * Where the database cannot tell whether it changed (`dataVersion()` is
   * `null`: a remote database or an injected Client): `"bounded"` (default)
   * serves an entry for at most {@linkcode REMOTE_STALENESS_MS}; `"uncached"`
   * reads every time, for values whose change must apply on the next request
   * in every process (a rotated sdkSecret).
   */
  remote?: "bounded" | "uncached";
  /** Milliseconds since the epoch, for the remote bound. Default `Date.now` (tests inject one). */
  now?: () => number;
  /**
   * Reads a version that moves whenever a row this cache may hold changes (one row a trigger bumps). On a local file,
   * when another connection has committed, the cache reads it (once, whatever the number of callers waiting) and
   * forgets its entries only when it moved; without it, every commit of another connection forgets them. Unused
   * where the database cannot tell that it changed (remote).
   */
  changes?: () => Promise<unknown>;
}

/** The version of {@linkcode ChangeCacheOptions.changes} before its first read. */
const UNREAD = Symbol("unread");

/**
 * Creates an empty cache over an executor's database.
 *
 * @param db The executor whose `dataVersion` validates the cache.
 * @param options The bound.
 * @returns The cache.
 */
export function createChangeCache<K, V>(db: Executor, options: ChangeCacheOptions): ChangeCache<K, V> {
  const entries = new BoundedMap<K, V>({ maxEntries: options.size });
  let version = db.dataVersion();
  const uncached = version === null && options.remote === "uncached";
  const clock = options.now ?? PLATFORM.now;
  let expires = clock() + REMOTE_STALENESS_MS;
  /** Bumped by every delete and drop, so a read that overlapped one is not cached. */
  let generation = 0;
  const { changes } = options;
  /** The last version read with `changes`. */
  let seen: unknown = UNREAD;
  /** The read of `changes` in flight, and the `data_version` it answers for. */
  let checking: { version: number; done: Promise<void> } | undefined;

  function drop(): void {
    entries.clear();
    generation++;
  }

  /** Makes the entries current; a promise when that takes a read of `changes` (shared by the turn's callers). */
  function validate(): Promise<void> | undefined {
    if (version === null) {
      const now = clock();
      if (now < expires) return;
      expires = now + REMOTE_STALENESS_MS;
      drop();
      return;
    }
    const current = db.dataVersion() as number;
    if (current === version) return;
    if (changes === undefined) {
      version = current;
      drop();
      return;
    }
    if (checking?.version === current) return checking.done;
    // Read after `current` was: a version unchanged there means no row changed up to `current`.
    const check = { version: current, done: Promise.resolve() };
    check.done = changes().then((value) => {
      if (value !== seen) {
        seen = value;
        drop();
      }
      if (checking === check) version = current;
    }).finally(() => {
      if (checking === check) checking = undefined;
    });
    checking = check;
    return check.done;
  }

  return {
    async read(key, load) {
      if (uncached) return await load();
      const validating = validate();
      if (validating !== undefined) await validating;
      const held = entries.get(key);
      if (held !== undefined || entries.has(key)) return held as V; // one look when it is held (an undefined held too)
      const before = generation;
      const value = await load();
      if (generation === before) entries.set(key, value);
      return value;
    },
    set(key, value) {
      generation++;
      if (!uncached) entries.set(key, value);
    },
    delete(key) {
      generation++;
      entries.delete(key);
    },
  };
}
