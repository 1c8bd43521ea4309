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
