/**
 * What an operator reads of a project's keys: filters, pages and counts.
 *
 * @module
 */
import type { KeyRecord } from "../../core/contract/mod.ts";

/** A key's state for filtering. */
export type KeyStatus = "active" | "revoked";

/** Filters and page of a project's keys. */
export interface KeyQuery {
  /** Only this user's. */
  userId?: string;
  /**
   * Only keys whose name, `start` or user begins with this text (case-sensitive); each is a range on an index
   * (see {@linkcode prefixRange}), so a search stays fast at millions of keys.
   */
  search?: string;
  /** Only active or only revoked keys. */
  status?: KeyStatus;
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** A page of keys and the count of all matches. */
export interface KeyPage {
  /** Newest first, ties by id. */
  keys: KeyRecord[];
  /** Count of every match. */
  total: number;
}

/** How many keys a project has, by state. */
export interface KeyCounts {
  /** Not revoked. */
  active: number;
  /** Revoked. */
  revoked: number;
}

/** An operator's reads of a project's keys. */
export interface KeyReads {
  /** A page of the project's keys across users, newest first. */
  listProjectKeys(projectId: string, query: KeyQuery): Promise<KeyPage>;
  /** The project's key with this id, or `null`. */
  findProjectKey(projectId: string, id: string): Promise<KeyRecord | null>;
  /** The project's keys by state. */
  countKeys(projectId: string): Promise<KeyCounts>;
}

/**
 * The range of text beginning with `prefix`: every such text `t` has `from <= t < to` in SQLite's binary order
 * (U+10FFFF is the largest character, and its UTF-8 the largest sequence), so `column >= from AND column < to`
 * finds them on an index, where `LIKE 'prefix%'` would read every row.
 *
 * @param prefix The beginning.
 * @returns The bounds, lower inclusive, upper exclusive.
 * @example The keys of users beginning with "ali"
 * ```ts
 * const { from, to } = prefixRange("ali");
 * // WHERE user_id >= from AND user_id < to
 * ```
 */
export function prefixRange(prefix: string): { from: string; to: string } {
  return { from: prefix, to: `${prefix}\u{10FFFF}` };
}
