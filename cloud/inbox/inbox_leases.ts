/**
 * The inbox as a queue: leases on items, the dead letters of items handed out too often, and their redrive. What
 * the repository offers, with no SQL (it is in `libsql_leases.ts`).
 *
 * @module
 */
import type { InboxItem } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** The longest lease, and the longest delay of a release, in seconds (12 hours). */
export const MAX_LEASE_SECONDS = 43_200;
/** Hand-outs of an item without an ack before it is a dead letter, unless the project's policy says otherwise. */
export const DEFAULT_MAX_DELIVERIES = 5;
/** The most a project's policy may set `inbox.maxDeliveries` to. */
export const MAX_MAX_DELIVERIES = 100;
/** The reason a dead letter records when its last lease ran out. */
export const LEASE_EXPIRED = "lease_expired";
/** The reason a dead letter records when its last release gave none. */
export const RELEASED = "released";

/** An item of an agent's dead letters. */
export interface DeadLetter {
  /** The item. */
  inboxId: number;
  /** The app's id for the event. */
  eventId: string;
  /** Event kind. */
  type: string;
  /** Free-form object. */
  payload: Record<string, unknown>;
  /** How many times it was handed out. */
  deliveries: number;
  /** ISO 8601 of when it became a dead letter. */
  deadAt: string;
  /** `lease_expired`, or the reason given at its last release. */
  reason: string;
}

/** The leases of the inbox's items (times are ISO 8601 strings, compared with the caller's clock). */
export interface InboxLeases {
  /**
   * Hands out up to `limit` items of one inbox after `cursor`, oldest first, that no lease holds, leased until
   * `until`, counting a delivery each: one conditional UPDATE, so two polls (on any node sharing the database)
   * never get the same item. Items whose last lease ran out at the project's `maxDeliveries` become dead letters
   * first, in the same transaction.
   */
  leaseInbox(
    projectId: string,
    agentId: string,
    cursor: number,
    limit: number,
    at: string,
    until: string,
    token: string,
  ): Promise<InboxItem[]>;
  /** The earliest time a lease or delay of one inbox ends after `at`, or `null` when none holds an item. */
  nextLeaseEnd(projectId: string, agentId: string, at: string): Promise<string | null>;
  /** Moves the end of live leases of one inbox to `until`; the leases moved. */
  extendLeases(
    projectId: string,
    agentId: string,
    leaseIds: string[],
    at: string,
    until: string,
  ): Promise<{ leaseId: string; leaseExpiresAt: string }[]>;
  /**
   * Ends live leases of one inbox: each item is back in the queue from `availableAt` (`at` for no delay), or a dead
   * letter with `reason` when it was handed out the project's `maxDeliveries` times; the count released.
   */
  releaseLeases(
    projectId: string,
    agentId: string,
    leaseIds: string[],
    at: string,
    availableAt: string,
    reason: string,
  ): Promise<number>;
  /** Acknowledges items of one inbox named by lease id; the count newly acknowledged. */
  acknowledgeLeases(projectId: string, agentId: string, leaseIds: string[], at: string): Promise<number>;
  /** One inbox's dead letters, oldest first (items whose last lease ran out at the limit become dead first). */
  deadLetters(projectId: string, agentId: string, at: string): Promise<DeadLetter[]>;
  /** Puts dead letters back in the queue (all, or those named), deliveries reset, with an audit entry; the count. */
  redrive(projectId: string, agentId: string, inboxIds: number[] | undefined, audit?: AuditEntryInput): Promise<number>;
  /**
   * Queues again the acknowledged items of one inbox (still kept) created in `[since, until)`: new items with the
   * same eventId and payload, `replay_of` naming the original; with an audit entry. The count queued.
   */
  replay(
    projectId: string,
    agentId: string,
    since: string,
    until: string,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<number>;
  /** The project's `inbox.maxDeliveries`. */
  maxDeliveries(projectId: string): Promise<number>;
  /** Sets the project's `inbox.maxDeliveries`, with its audit entry. */
  setMaxDeliveries(projectId: string, maxDeliveries: number, audit?: AuditEntryInput): Promise<void>;
}
