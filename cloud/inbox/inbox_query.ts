/**
 * What an operator reads and does of a project's inboxes: the backlog, one inbox's items, a discard.
 *
 * @module
 */
import type { InboxItem } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** One inbox's backlog. */
export interface InboxBacklog {
  /** The inbox. */
  agentId: string;
  /** Items not acknowledged. */
  waiting: number;
  /** ISO 8601 of the oldest waiting item. */
  oldestAt: string;
  /** The most deliveries of a waiting item. */
  maxDeliveries: number;
}

/** An inbox item's state. */
export type InboxItemStatus = "waiting" | "acknowledged";

/** Filter and page of one inbox's items. */
export interface InboxQuery {
  /** Only waiting or only acknowledged items; both when absent. */
  status?: InboxItemStatus;
  /** Page size. */
  limit: number;
  /** Rows to skip. */
  offset: number;
}

/** An inbox item as an operator sees it: with when it was acknowledged. */
export interface PeekedInboxItem extends InboxItem {
  /** ISO 8601 of the acknowledgement (by the agent, or an operator's discard), or `null` while waiting. */
  acknowledgedAt: string | null;
}

/** Items of one inbox and the count of all matches. */
export interface InboxPage {
  /**
   * Waiting items oldest first (the order the agent gets them); acknowledged or all items newest first.
   * `deliveries` as counted so far (reading here counts none).
   */
  items: PeekedInboxItem[];
  /** Count of every match. */
  total: number;
}

/** An operator's reads of a project's inboxes, and the discard of one item. */
export interface InboxReads {
  /** Every inbox of the project with waiting items, the oldest backlog first. */
  inboxBacklog(projectId: string): Promise<InboxBacklog[]>;
  /** The waiting items of every project that has any, and the oldest one's time (the metrics' inbox depth). */
  waitingByProject(): Promise<{ projectId: string; waiting: number; oldestAt: string }[]>;
  /** Items of one inbox (waiting, acknowledged and not yet purged, or both), without counting a delivery. */
  peekInbox(projectId: string, agentId: string, query: InboxQuery): Promise<InboxPage>;
  /**
   * Acknowledges one waiting item of an agent's inbox on an operator's behalf; `false` when it is not waiting in
   * that inbox of the project (another agent's item is not found, and nothing is audited).
   */
  discardInboxItem(
    projectId: string,
    agentId: string,
    inboxId: number,
    at: string,
    audit?: AuditEntryInput,
  ): Promise<boolean>;
}
