/**
 * The inbox service: storing events and waking the inboxes they reach,
 * reading an inbox (counting the delivery) and acknowledging its items.
 *
 * @module
 */
import type { InboxItem } from "../../core/contract/mod.ts";
import type { AppendResult, EventInput, InboxRepository } from "./inbox_repository.ts";
import type { InboxWaiters } from "./inbox_waiters.ts";

/** What the `/v1` routes do with events and inboxes. */
export interface InboxService {
  /** Stores events (deduplicated by eventId) in one transaction and wakes the polls of the inboxes they reach. */
  append(projectId: string, events: EventInput[]): Promise<AppendResult[]>;
  /** Waiting items of one inbox after `cursor`, ascending, counting the delivery. */
  read(projectId: string, agentId: string, cursor: number, limit: number): Promise<InboxItem[]>;
  /** Acknowledges items of one inbox; the count newly acknowledged. */
  acknowledge(projectId: string, agentId: string, inboxIds: number[]): Promise<number>;
  /** The long polls' wake-ups. */
  waiters: InboxWaiters;
}

/**
 * Creates the inbox service.
 *
 * @param storage The features' repositories.
 * @param waiters Long-poll wake-ups.
 * @returns The service.
 */
export function createInboxService(storage: { inbox: InboxRepository }, waiters: InboxWaiters): InboxService {
  return {
    async append(projectId, events) {
      const results = await storage.inbox.appendEvents(projectId, events, new Date().toISOString());
      for (const agentId of new Set(results.filter((r) => !r.duplicate).map((r) => r.agentId))) {
        waiters.notify(projectId, agentId);
      }
      return results;
    },
    read: (projectId, agentId, cursor, limit) => storage.inbox.listInbox(projectId, agentId, cursor, limit),
    acknowledge: (projectId, agentId, inboxIds) =>
      storage.inbox.acknowledge(projectId, agentId, inboxIds, new Date().toISOString()),
    waiters,
  };
}
