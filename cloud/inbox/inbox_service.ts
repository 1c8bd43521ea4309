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
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the `/v1` routes do with events and inboxes. */
export interface InboxService {
  /** Stores events (deduplicated by eventId) in one transaction and wakes the polls of the inboxes they reach. */
  append(projectId: string, events: PostedEvent[]): Promise<AppendResult[]>;
  /** Waiting items of one inbox after `cursor`, ascending, counting the delivery. */
  read(projectId: string, agentId: string, cursor: number, limit: number): Promise<InboxItem[]>;
  /** Acknowledges items of one inbox; the count newly acknowledged. */
  acknowledge(projectId: string, agentId: string, inboxIds: number[]): Promise<number>;
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
  return {
    now,
    async append(projectId, events) {
      const results = await storage.inbox.appendEvents(projectId, events, new Date(now()).toISOString());
      for (const agentId of new Set(results.filter((r) => !r.duplicate).map((r) => r.agentId))) {
        waiters.notify(projectId, agentId);
      }
      return results;
    },
    read: (projectId, agentId, cursor, limit) => storage.inbox.listInbox(projectId, agentId, cursor, limit),
    acknowledge: (projectId, agentId, inboxIds) =>
      storage.inbox.acknowledge(projectId, agentId, inboxIds, new Date(now()).toISOString()),
    waiters,
    backlog: (projectId) => storage.inbox.inboxBacklog(projectId),
    peek: (projectId, agentId, query) => storage.inbox.peekInbox(projectId, agentId, query),
    discard: (projectId, agentId, inboxId, at, audit) =>
      storage.inbox.discardInboxItem(projectId, agentId, inboxId, at, audit),
  };
}
