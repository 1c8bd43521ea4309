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
  /** Every project's feed rows by reason, with the project's highest `seq` (the metrics' revocations). */
  revocationsByReason(): Promise<{ projectId: string; reason: string; count: number; latestSeq: number }[]>;
  /** The highest feed `seq` of every project (0 when none): one read that tells the long polls' watcher of any new revocation. */
  latestRevocationSeq(): Promise<number>;
}
