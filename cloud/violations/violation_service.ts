/**
 * The violations service: storing reports (one, or a batch in one
 * transaction) and applying the project's auto-revoke policy to each, listing
 * them, and reading or changing the policy.
 *
 * @module
 */
import type { AuditActor } from "../audit/mod.ts";
import type { ReportedViolation, StoredReport, ViolationPage, ViolationQuery } from "./violation_repository.ts";
import type { BucketUnit, ViolationBucket } from "./violation_chart.ts";
import type { InboxWaiters } from "../feed/mod.ts";
import { applyAutoRevoke, type ViolationRepositories } from "./auto_revoke.ts";
import { type PolicyChange, type PolicyView, readPolicy, updatePolicy } from "./project_policy.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the `/v1` routes and the dashboard do with violations. */
export interface ViolationService {
  /**
   * Stores the reports (a batch in one transaction), each `reportId` once, and applies the project's auto-revoke
   * policy to each new one (a duplicate is never counted again); one outcome per report, in order.
   */
  report(projectId: string, reports: readonly ReportedViolation[]): Promise<StoredReport[]>;
  /** A page of the project's violations. */
  list(projectId: string, query: ViolationQuery): Promise<ViolationPage>;
  /** The project's policy. */
  policy(projectId: string): Promise<PolicyView>;
  /** Changes the project's policy, each change with its audit entry; `null` when the project is unknown. */
  changePolicy(projectId: string, change: PolicyChange, by: AuditActor): Promise<PolicyView | null>;
  /** Violations at or after `since`, counted by bucket and severity, oldest bucket first (the dashboard's chart). */
  chart(projectId: string, since: string, unit: BucketUnit): Promise<ViolationBucket[]>;
}

/**
 * Creates the violations service.
 *
 * @param storage The features' repositories.
 * @param waiters Long-poll wake-ups: an auto-revoke wakes the revocation feed.
 * @param now The clock of an auto-revoke and a policy change (default the platform's).
 * @returns The service.
 */
export function createViolationService(
  storage: ViolationRepositories,
  waiters: InboxWaiters,
  now: () => number = PLATFORM.now,
): ViolationService {
  return {
    async report(projectId, reports) {
      const violations = reports.map((r) => r.violation);
      let stored: StoredReport[];
      if (reports.some((r) => r.reportId !== null)) stored = await storage.violations.addReports(projectId, reports);
      else {
        // Without report ids (tooling): the plain writes, a single report in the group commit.
        if (violations.length === 1) await storage.violations.addViolation(projectId, violations[0]);
        else await storage.violations.addViolations(projectId, violations);
        stored = violations.map((v) => ({ id: v.id, duplicate: false }));
      }
      for (const [i, violation] of violations.entries()) {
        if (!stored[i].duplicate) await applyAutoRevoke({ storage, waiters }, projectId, violation, now());
      }
      return stored;
    },
    list: (projectId, query) => storage.violations.listViolations(projectId, query),
    policy: (projectId) => readPolicy(storage, projectId),
    changePolicy: (projectId, change, by) => updatePolicy(storage, projectId, change, by, now()),
    chart: (projectId, since, unit) => storage.violations.violationBuckets(projectId, since, unit),
  };
}
