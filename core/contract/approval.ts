/**
 * Approvals: an agent's run of an intent that waits for its user's decision. The app keeps the approval and its
 * payload; hybrid and cloud-mode apps tell the cloud each step (`POST /v1/sdk/approvals/batch`, never the payload),
 * so the cloud audits it (`approval.request`, `approval.approve`, `approval.deny`, `approval.expire`,
 * `approval.cancel`) and the dashboard lists what is pending.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "./limits.ts";
import { isoTimestamp, MAX_BATCH } from "./wire_values.ts";

/** Where an approval stands. */
export type ApprovalStatus = "pending" | "approved" | "denied" | "expired" | "cancelled";

/** The statuses; every one but `pending` is final. */
export const APPROVAL_STATUSES: readonly ApprovalStatus[] = ["pending", "approved", "denied", "expired", "cancelled"];

/** The prefix of an approval's id (`apr_` + ULID). */
export const APPROVAL_ID_PREFIX = "apr_";

/** The audit action of each status at the cloud. */
export const APPROVAL_AUDIT_ACTIONS: Readonly<Record<ApprovalStatus, string>> = {
  pending: "approval.request",
  approved: "approval.approve",
  denied: "approval.deny",
  expired: "approval.expire",
  cancelled: "approval.cancel",
};

/** One step of an approval as the app tells the cloud: no payload, no result. */
export interface ApprovalStep {
  /** `apr_` + ULID. */
  approvalId: string;
  /** The intent waiting. */
  intent: string;
  /** The key that asked. */
  keyId: string;
  /** The key's user, who decides. */
  userId: string;
  /** The key's agent id, when it has one. */
  agentId: string | null;
  /** Where it stands after this step. */
  status: ApprovalStatus;
  /** When it was asked for. */
  createdAt: string;
  /** When it expires if nobody decides. */
  expiresAt: string;
  /** When it was decided, expired or cancelled; `null` while pending. */
  decidedAt: string | null;
  /** A denial's reason, when given. */
  reason?: string;
}

/** The schema of one step as the cloud accepts it; the cloud stores each (approvalId, status) once. */
export const approvalStepSchema: z.ZodType<ApprovalStep, unknown> = z.object({
  approvalId: z.string().regex(/^apr_[0-9A-HJKMNP-TV-Z]{26}$/, "apr_ followed by a ULID"),
  intent: storedText(1, 200),
  keyId: storedText(1, 200),
  userId: storedText(1, 200),
  agentId: storedText(1, 200).nullable(),
  status: z.enum(["pending", "approved", "denied", "expired", "cancelled"]),
  createdAt: isoTimestamp,
  expiresAt: isoTimestamp,
  decidedAt: isoTimestamp.nullable(),
  reason: storedText(0, 1000).optional(),
});

/** The body of `POST /v1/sdk/approvals/batch`: up to 500 steps. */
export const approvalBatchSchema: z.ZodType<{ approvals: ApprovalStep[] }, unknown> = z.object({
  approvals: z.array(approvalStepSchema).min(1).max(MAX_BATCH),
});
