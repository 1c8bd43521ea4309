/**
 * The inbox service: storing events and waking the inboxes they reach,
 * reading an inbox (counting the delivery) and acknowledging its items.
 *
 * @module
 */
import type { InboxItem, PostedEvent } from "../../core/contract/mod.ts";
import type { AppendResult, InboxRepository } from "./inbox_repository.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import type { InboxBacklog, InboxPage, InboxQuery } from "./inbox_query.ts";
import type { AuditEntryInput } from "../audit/mod.ts";
import type { DeadLetter } from "./inbox_leases.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the `/v1` routes do with events and inboxes. */
export interface InboxService {
  /** Stores events (deduplicated by eventId) in one transaction and wakes the polls of the inboxes they reach. */
  append(projectId: string, events: PostedEvent[]): Promise<AppendResult[]>;
  /** Waiting items of one inbox after `cursor`, ascending, counting the delivery. */
  read(projectId: string, agentId: string, cursor: number, limit: number): Promise<InboxItem[]>;
  /** Acknowledges items of one inbox, named by inbox id or lease id; the count newly acknowledged. */
  acknowledge(projectId: string, agentId: string, inboxIds: number[], leaseIds?: string[]): Promise<number>;
  /** Hands out up to `limit` items of one inbox after `cursor` that no lease holds, leased for `seconds`. */
  lease(projectId: string, agentId: string, cursor: number, limit: number, seconds: number): Promise<InboxItem[]>;
  /** When the next lease or delay of one inbox ends, in milliseconds, or `null` when none holds an item. */
  nextLeaseEnd(projectId: string, agentId: string): Promise<number | null>;
  /** Extends live leases of one inbox to `seconds` from now; the leases extended, with their new end. */
  extend(
    projectId: string,
    agentId: string,
    leaseIds: string[],
    seconds: number,
  ): Promise<{ leaseId: string; leaseExpiresAt: string }[]>;
  /**
   * Ends live leases of one inbox: back to the queue after `delaySeconds`, or a dead letter with `reason` at the
   * project's maxDeliveries; wakes the inbox's polls. The count released.
   */
  release(
    projectId: string,
    agentId: string,
    leaseIds: string[],
    delaySeconds: number,
    reason: string,
  ): Promise<number>;
  /** One inbox's dead letters, oldest first. */
  deadLetters(projectId: string, agentId: string): Promise<DeadLetter[]>;
  /** Puts dead letters back in the queue (all, or those named), deliveries reset, audited; wakes the inbox's polls. */
  redrive(projectId: string, agentId: string, inboxIds: number[] | undefined, audit: AuditEntryInput): Promise<number>;
  /**
   * Queues again the acknowledged items (still kept) created in `[since, until)` (until: now when absent), as new
   * items with `replayOf`, audited; wakes the inbox's polls. The count queued.
   */
  replay(
    projectId: string,
    agentId: string,
    since: string,
    until: string | undefined,
    audit: AuditEntryInput,
  ): Promise<number>;
  /** The long polls' wake-ups. */
  waiters: InboxWaiters;
  /** The service's clock, in milliseconds (a long poll's deadline). */
  now(): number;
  /** Every inbox of the project with waiting items, the oldest backlog first (the dashboard's). */
  backlog(projectId: string): Promise<InboxBacklog[]>;
  /** Items of one inbox, without counting a delivery. */
  peek(projectId: string, agentId: string, query: InboxQuery): Promise<InboxPage>;
  /** Acknowledges one waiting item on an operator's behalf, with its audit entry; `false` when not waiting there. */
  discard(projectId: string, agentId: string, inboxId: number, at: string, audit: AuditEntryInput): Promise<boolean>;
}

/**
 * Creates the inbox service.
 *
 * @param storage The features' repositories.
 * @param waiters Long-poll wake-ups.
 * @param now The clock of an append and an acknowledgement (default the platform's).
 * @returns The service.
 */
export function createInboxService(
  storage: { inbox: InboxRepository },
  waiters: InboxWaiters,
  now: () => number = PLATFORM.now,
): InboxService {
  /** The last append's time and its ISO text: appends within one millisecond (thousands a second) format it once. */
  let appendedMs = Number.NaN;
  let appendedAt = "";
  return {
    now,
    async append(projectId, events) {
      const ms = now();
      if (ms !== appendedMs) appendedAt = iso(appendedMs = ms);
      const results = await storage.inbox.appendEvents(projectId, events, appendedAt);
      if (results.length === 1) { // one event (nearly every request): no set of agents to build
        if (!results[0].duplicate) waiters.notify(projectId, results[0].agentId);
        return results;
      }
      for (const agentId of new Set(results.filter((r) => !r.duplicate).map((r) => r.agentId))) {
        waiters.notify(projectId, agentId);
      }
      return results;
    },
    read: (projectId, agentId, cursor, limit) => storage.inbox.listInbox(projectId, agentId, cursor, limit, iso(now())),
    async acknowledge(projectId, agentId, inboxIds, leaseIds = []) {
      const at = iso(now());
      const byId = inboxIds.length > 0 ? await storage.inbox.acknowledge(projectId, agentId, inboxIds, at) : 0;
      const byLease = leaseIds.length > 0 ? await storage.inbox.acknowledgeLeases(projectId, agentId, leaseIds, at) : 0;
      return byId + byLease;
    },
    lease(projectId, agentId, cursor, limit, seconds) {
      const at = now();
      const token = PLATFORM.randomUUID().replaceAll("-", "");
      return storage.inbox.leaseInbox(projectId, agentId, cursor, limit, iso(at), iso(at + seconds * 1000), token);
    },
    async nextLeaseEnd(projectId, agentId) {
      const next = await storage.inbox.nextLeaseEnd(projectId, agentId, iso(now()));
      return next === null ? null : Date.parse(next);
    },
    extend(projectId, agentId, leaseIds, seconds) {
      const at = now();
      return storage.inbox.extendLeases(projectId, agentId, leaseIds, iso(at), iso(at + seconds * 1000));
    },
    async release(projectId, agentId, leaseIds, delaySeconds, reason) {
      const at = now();
      const released = await storage.inbox.releaseLeases(
        projectId,
        agentId,
        leaseIds,
        iso(at),
        iso(at + delaySeconds * 1000),
        reason,
      );
      if (released > 0) waiters.notify(projectId, agentId);
      return released;
    },
    deadLetters: (projectId, agentId) => storage.inbox.deadLetters(projectId, agentId, iso(now())),
    async replay(projectId, agentId, since, until, audit) {
      const at = iso(now());
      const replayed = await storage.inbox.replay(projectId, agentId, since, until ?? at, at, audit);
      if (replayed > 0) waiters.notify(projectId, agentId);
      return replayed;
    },
    async redrive(projectId, agentId, inboxIds, audit) {
      const redriven = await storage.inbox.redrive(projectId, agentId, inboxIds, audit);
      if (redriven > 0) waiters.notify(projectId, agentId);
      return redriven;
    },
    waiters,
    backlog: (projectId) => storage.inbox.inboxBacklog(projectId),
    peek: (projectId, agentId, query) => storage.inbox.peekInbox(projectId, agentId, query),
    discard: (projectId, agentId, inboxId, at, audit) =>
      storage.inbox.discardInboxItem(projectId, agentId, inboxId, at, audit),
  };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
