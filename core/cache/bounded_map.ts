/**
 * A map with a bound on its entries, least recently used out first, and an optional time to live: the one
 * in-memory cache of both sides (verifications, refusals, prepared statements, change-validated reads).
 *
 * @module
 */

import { PLATFORM } from "../platform/mod.ts";

/** Options of {@linkcode BoundedMap}. */
export interface BoundedMapOptions<K, V> {
  /** Most entries kept; setting a new key past it evicts the least recently used. At least 1. */
  maxEntries: number;
  /** How long an entry lives after it was set, in milliseconds; absent: until evicted or deleted. */
  ttlMs?: number;
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Called for an entry evicted to make room or found expired (not for `delete`, `clear` or a replaced value). */
  onEvict?: (key: K, value: V, reason: "full" | "expired") => void;
}

/** No key is known to be the most recently used. */
const NONE: unique symbol = Symbol("none");

interface Entry<V> {
  value: V;
  expires: number;
}

/**
 * A bounded LRU map with an optional time to live.
 *
 * @example A cache of two verifications that live one second
 * ```ts
 * import { BoundedMap } from "./bounded_map.ts";
 *
 * let now = 0;
 * const cache = new BoundedMap<string, string>({ maxEntries: 2, ttlMs: 1000, now: () => now });
 * cache.set("a", "alice").set("b", "bob");
 * cache.get("a"); // "a" is now the most recently used
 * cache.set("c", "carol"); // evicts "b"
 * console.log(cache.has("b"), cache.get("a")); // false alice
 * now = 1000;
 * console.log(cache.get("a")); // undefined: expired
 * ```
 */
export class BoundedMap<K, V> {
  #entries = new Map<K, Entry<V>>();
  #max: number;
  #ttl: number;
  #now: () => number;
  #onEvict?: (key: K, value: V, reason: "full" | "expired") => void;
  /** The most recently used key while it is known (a `get` of it leaves the order as it is); else `undefined`. */
  #newest: K | typeof NONE = NONE;

  /**
   * Creates an empty map.
   *
   * @param options The bound, the time to live, the clock and the eviction hook.
   * @throws {RangeError} When `maxEntries` is below 1 or `ttlMs` is not positive.
   */
  constructor(options: BoundedMapOptions<K, V>) {
    if (!(options.maxEntries >= 1)) throw new RangeError("maxEntries must be >= 1");
    if (options.ttlMs !== undefined && !(options.ttlMs > 0)) throw new RangeError("ttlMs must be > 0");
    this.#max = options.maxEntries;
    this.#ttl = options.ttlMs ?? Infinity;
    this.#now = options.now ?? PLATFORM.now;
    this.#onEvict = options.onEvict;
  }

  /** How many entries are held (expired ones not yet found included). */
  get size(): number {
    return this.#entries.size;
  }

  /**
   * The value of a live entry, which becomes the most recently used.
   *
   * @param key The key.
   * @returns The value, or `undefined` when absent or expired (an expired entry is dropped).
   */
  get(key: K): V | undefined {
    const entry = this.#live(key);
    if (entry === undefined) return undefined;
    if (key !== this.#newest) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
      this.#newest = key;
    }
    return entry.value;
  }

  /**
   * The value of a live entry, leaving the order as it is.
   *
   * @param key The key.
   * @returns The value, or `undefined` when absent or expired (an expired entry is dropped).
   */
  peek(key: K): V | undefined {
    return this.#live(key)?.value;
  }

  /**
   * Whether a live entry is held.
   *
   * @param key The key.
   * @returns `true` when it is.
   */
  has(key: K): boolean {
    return this.#live(key) !== undefined;
  }

  /**
   * Sets a value, most recently used, living `ttlMs` from now; evicts the least recently used when full.
   *
   * @param key The key.
   * @param value The value.
   * @returns The map.
   */
  set(key: K, value: V): this {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#max) this.#makeRoom();
    this.#entries.set(key, { value, expires: this.#ttl === Infinity ? Infinity : this.#now() + this.#ttl });
    this.#newest = key;
    return this;
  }

  /**
   * Deletes an entry.
   *
   * @param key The key.
   * @returns Whether one was held.
   */
  delete(key: K): boolean {
    if (key === this.#newest) this.#newest = NONE;
    return this.#entries.delete(key);
  }

  /**
   * Drops expired entries from the least recently used end (each told to `onEvict`), up to the first live one:
   * every expired entry when the map is only read with {@linkcode BoundedMap.peek} (entries then expire in the
   * order they were set).
   *
   * @returns How many were dropped.
   */
  prune(): number {
    const now = this.#clock();
    let dropped = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.expires > now) break;
      this.delete(key);
      this.#onEvict?.(key, entry.value, "expired");
      dropped++;
    }
    return dropped;
  }

  /** Deletes every entry. */
  clear(): void {
    this.#newest = NONE;
    this.#entries.clear();
  }

  /**
   * The live entries, least recently used first.
   *
   * @returns Each key and value.
   */
  *entries(): IterableIterator<[K, V]> {
    const now = this.#clock();
    for (const [key, entry] of [...this.#entries]) {
      if (entry.expires > now) yield [key, entry.value];
    }
  }

  /** The time, or before every time when entries never expire (the clock is then not read). */
  #clock(): number {
    return this.#ttl === Infinity ? -Infinity : this.#now();
  }

  #live(key: K): Entry<V> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expires === Infinity || entry.expires > this.#now()) return entry; // no time to live: no clock read
    this.delete(key);
    this.#onEvict?.(key, entry.value, "expired");
    return undefined;
  }

  #makeRoom(): void {
    const now = this.#clock();
    for (const [key, entry] of this.#entries) {
      const expired = entry.expires <= now;
      if (!expired && this.#entries.size < this.#max) return;
      this.delete(key);
      this.#onEvict?.(key, entry.value, expired ? "expired" : "full");
      if (!expired) return;
    }
  }
}
