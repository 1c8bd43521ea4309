/**
 * The revocation feed: part of the keys' repository.
 *
 * @module
 */
import type { Revocation } from "../../core/contract/mod.ts";

/** The revocation feed. */
export interface RevocationStorage {
  /** The project's revocations with `seq > after`, ascending, at most `limit`. */
  listRevocations(projectId: string, after: number, limit: number): Promise<Revocation[]>;
  /** The project's highest feed `seq` (0 when none). */
  projectRevocationSeq(projectId: string): Promise<number>;
  /** The highest feed `seq` of every project (0 when none): one read that tells the long polls' watcher of any new revocation. */
  latestRevocationSeq(): Promise<number>;
}
