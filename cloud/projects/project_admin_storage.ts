/**
 * What an operator reads and changes of a project beyond the `/v1` routes:
 * rename, delete, retention, keys across users, inbox backlog, the violations
 * chart. Part of the storage interface, so the dashboard has no SQL of its own.
 *
 * @module
 */
import type { KeyRecord } from "../../core/contract/mod.ts";
import type { InboxItem } from "../../core/contract/mod.ts";
import type { Severity } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

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

/** The width of a chart bucket. */
export type BucketUnit = "hour" | "day";

/** Violations of one severity in one bucket. */
export interface ViolationBucket {
  /** The bucket's start: `YYYY-MM-DDTHH` for hours, `YYYY-MM-DD` for days (UTC). */
  bucket: string;
  /** The severity. */
  severity: Severity;
  /** How many. */
  count: number;
}

/** Project administration and the dashboard's reads: part of the cloud's storage. */
export interface ProjectAdminStorage {
  /** Renames a project; `false` when unknown. */
  renameProject(id: string, name: string, audit?: AuditEntryInput): Promise<boolean>;
  /**
   * Deletes a project with its keys, claims, manifest, violations, events and settings, and appends `audit`,
   * in one transaction; `false` (and nothing written) when unknown.
   */
  deleteProject(id: string, audit: AuditEntryInput): Promise<boolean>;
  /** Sets (or, with `null`, clears) the project's retention; `false` when the project is unknown. */
  setProjectRetention(id: string, retentionMs: number | null, at: string, audit?: AuditEntryInput): Promise<boolean>;

  /** A page of the project's keys across users, newest first. */
  listProjectKeys(projectId: string, query: KeyQuery): Promise<KeyPage>;
  /** The project's key with this id, or `null`. */
  findProjectKey(projectId: string, id: string): Promise<KeyRecord | null>;
  /** The project's keys by state. */
  countKeys(projectId: string): Promise<KeyCounts>;

  /** Every inbox of the project with waiting items, the oldest backlog first. */
  inboxBacklog(projectId: string): Promise<InboxBacklog[]>;
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

  /** Violations at or after `since`, counted by bucket and severity, oldest bucket first. */
  violationBuckets(projectId: string, since: string, unit: BucketUnit): Promise<ViolationBucket[]>;
}
