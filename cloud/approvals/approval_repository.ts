/**
 * What the approvals feature stores: each approval's latest step as its app reported it, every (approval, status)
 * once, with its audit entry in the same transaction.
 *
 * @module
 */
import type { ApprovalStatus, ApprovalStep } from "../../core/contract/mod.ts";
import type { AuditEntryInput } from "../audit/mod.ts";

/** A step as it arrives, with its audit entry (written only when the step is new) and a fresh nonce. */
export interface ReportedStep {
  /** The step. */
  step: ApprovalStep;
  /** Its audit entry. */
  audit: AuditEntryInput;
  /** A fresh id of this delivery. */
  nonce: string;
  /** When the cloud received it (ISO 8601). */
  receivedAt: string;
}

/** A filter and page of a project's approvals, newest first. */
export interface ApprovalQuery {
  /** Only this status; `pending` and `expired` read the expiry against `now`. */
  status?: ApprovalStatus;
  /** Only this key's. */
  keyId?: string;
  /** Only this user's. */
  userId?: string;
  /** Only those no longer pending (decided, expired or cancelled; an expiry passed counts). */
  decided?: boolean;
  /** At most this many. */
  limit: number;
  /** Only approvals older than this one (the previous page's `nextCursor`). */
  cursor?: string;
  /** The time expiries are read against (ISO 8601). */
  now: string;
}

/** An approval as listed: its latest step, `expired` when its expiry passed while it was pending. */
export type ListedApproval = Omit<ApprovalStep, "reason"> & { reason: string | null };

/** The approvals' storage. */
export interface ApprovalRepository {
  /** Stores the steps in one transaction, each (approvalId, status) once; per step, `true` when newly stored. */
  addApprovalSteps(projectId: string, steps: readonly ReportedStep[]): Promise<boolean[]>;
  /**
   * Deletes, in short chunks, the approvals (and their steps) that expired before `before`: decided or not, they are
   * long over. The count of approvals deleted.
   */
  purgeApprovals(before: string): Promise<number>;
  /** A page of the project's approvals, newest first. */
  listApprovals(projectId: string, query: ApprovalQuery): Promise<ListedApproval[]>;
}
