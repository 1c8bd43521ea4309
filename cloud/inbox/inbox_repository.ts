/**
 * Events and inboxes: what the feature's repository offers, with no SQL; all the SQL of its tables is behind it, on libSQL in
 * this folder.
 *
 * @module
 */
import type { InboxItem, PostedEvent } from "../../core/contract/mod.ts";
import type { InboxReads } from "./inbox_query.ts";
import type { InboxLeases } from "./inbox_leases.ts";

/** What storing one event did. */
export interface AppendResult {
  /** The event's id. */
  eventId: string;
  /** The inbox item holding it (the first one, for a duplicate). */
  inboxId: number;
  /** `true` when the eventId was already known. */
  duplicate: boolean;
  /** The inbox it went to (the first one's, for a duplicate). */
  agentId: string;
}

/** An inbox item as delivered. */
export type { InboxItem };

/** What {@linkcode InboxRepository.inboxesFilledAfter} found. */
export interface FilledInboxes {
  /** The newest inbox id stored (0 when none ever was). */
  latest: number;
  /** The inboxes with items after the given id. */
  inboxes: { projectId: string; agentId: string }[];
}

/** Events and inboxes: the repository. */
export interface InboxRepository extends InboxReads, InboxLeases {
  /** Stores events and their inbox items in one transaction, deduplicating by eventId. */
  appendEvents(projectId: string, events: PostedEvent[], at: string): Promise<AppendResult[]>;
  /** Waiting items of one inbox after `cursor` that no lease holds at `at`, ascending, counting the delivery. */
  listInbox(projectId: string, agentId: string, cursor: number, limit: number, at: string): Promise<InboxItem[]>;
  /** Acknowledges items of one inbox; the count of items newly acknowledged. */
  acknowledge(projectId: string, agentId: string, inboxIds: number[], at: string): Promise<number>;
  /** Deletes items acknowledged before `before` (before now minus its own retention for a project that has one), with their events; the count deleted. */
  purgeAcknowledged(before: string): Promise<number>;
  /**
   * The inboxes that received items after `inboxId` (by any process), and the newest inbox id:
   * one range read for every waiting poll of this node. Start with `inboxId` -1 to learn the newest id only.
   */
  inboxesFilledAfter(inboxId: number): Promise<FilledInboxes>;
  /**
   * Changes when another connection may have committed (`PRAGMA data_version` on a local file; 0 for
   * `:memory:`); `null` when it cannot tell (remote), so callers look again on a timer.
   */
  dataVersion(): number | null;
}
