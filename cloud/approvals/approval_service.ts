/**
 * The approvals service: the steps of approvals an app reports (each (approval, status) stored and audited once),
 * listed for tooling and for the dashboard's read-only page. The user decides in the app; the cloud only records.
 *
 * @module
 */
import { APPROVAL_AUDIT_ACTIONS, type ApprovalStep } from "../../core/contract/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";
import { type AuditActor, auditRecord } from "../audit/mod.ts";
import type { ApprovalQuery, ApprovalRepository, ListedApproval } from "./approval_repository.ts";

/** A page of approvals, newest first, and the cursor of the next (`null` on the last). */
export interface ApprovalPage {
  /** The approvals. */
  approvals: ListedApproval[];
  /** Pass as `cursor` for the next page; `null` when there is none. */
  nextCursor: string | null;
}

/** What the dashboard's approvals page shows. */
export interface ApprovalBoard {
  /** Waiting for their user's decision, newest first. */
  pending: ListedApproval[];
  /** Recently decided, expired or cancelled, newest first. */
  decided: ListedApproval[];
}

/** What the routes and the dashboard do with approvals. */
export interface ApprovalService {
  /** Stores the steps in one transaction, each (approvalId, status) once with its audit entry; how many were new. */
  record(projectId: string, steps: readonly ApprovalStep[], by: AuditActor): Promise<number>;
  /** A page of the project's approvals. */
  list(projectId: string, query: Omit<ApprovalQuery, "now">): Promise<ApprovalPage>;
  /** The dashboard's page at `at` (milliseconds, default now): what is pending, then what was recently decided. */
  board(projectId: string, at?: number): Promise<ApprovalBoard>;
}

/** The most approvals of each list on the dashboard's page. */
const BOARD_ROWS = 100;

/**
 * Creates the approvals service.
 *
 * @param storage The approvals' repository.
 * @param now The clock of arrivals and expiries (default the platform's).
 * @returns The service.
 */
export function createApprovalService(
  storage: { approvals: ApprovalRepository },
  now: () => number = PLATFORM.now,
): ApprovalService {
  const nowIso = () => new Date(now()).toISOString();
  return {
    async record(projectId, steps, by) {
      const received = now();
      const receivedAt = new Date(received).toISOString();
      const stored = await storage.approvals.addApprovalSteps(
        projectId,
        steps.map((step) => {
          const at = Date.parse(step.decidedAt ?? step.createdAt);
          return {
            step,
            nonce: PLATFORM.randomUUID(),
            receivedAt,
            audit: auditRecord(by, {
              action: APPROVAL_AUDIT_ACTIONS[step.status],
              projectId,
              target: step.approvalId,
              detail: {
                intent: step.intent,
                keyId: step.keyId,
                userId: step.userId,
                ...step.status === "denied" && step.reason !== undefined ? { reason: step.reason } : {},
              },
              at,
              ...received > at ? { receivedAt: received } : {},
            }),
          };
        }),
      );
      return stored.filter(Boolean).length;
    },
    async list(projectId, query) {
      const approvals = await storage.approvals.listApprovals(projectId, { ...query, now: nowIso() });
      const last = approvals.at(-1);
      return { approvals, nextCursor: approvals.length === query.limit && last ? last.approvalId : null };
    },
    async board(projectId, when = now()) {
      const at = new Date(when).toISOString();
      const [pending, decided] = await Promise.all([
        storage.approvals.listApprovals(projectId, { status: "pending", limit: BOARD_ROWS, now: at }),
        storage.approvals.listApprovals(projectId, { decided: true, limit: BOARD_ROWS, now: at }),
      ]);
      return { pending, decided };
    },
  };
}
