/**
 * What the dashboard is given: the features' services (every read and change of a page goes through them; no page
 * touches a repository). The cloud's assembly builds exactly these (its `CloudServices` is this type).
 *
 * @module
 */
import type { ApprovalService } from "../approvals/mod.ts";
import type { ActivityService } from "../activity/mod.ts";
import type { AppService } from "../apps/mod.ts";
import type { AuditService } from "../audit/mod.ts";
import type { InboxService } from "../inbox/mod.ts";
import type { KeyService } from "../keys/mod.ts";
import type { OperatorService } from "../operators/mod.ts";
import type { ProjectService } from "../projects/mod.ts";
import type { ViolationService } from "../violations/mod.ts";

/** The features' services the dashboard calls. */
export interface DashboardServices {
  /** What agents did: the runs apps ship. */
  activity: ActivityService;
  /** Keys, their revocation and the revocation feed. */
  keys: KeyService;
  /** Events and inboxes. */
  inbox: InboxService;
  /** Violations and the auto-revoke policy. */
  violations: ViolationService;
  /** Projects and their manifests. */
  projects: ProjectService;
  /** The audit log. */
  audit: AuditService;
  /** Operators: sign-in, sessions, setup, two-factor and account changes. */
  operators: OperatorService;
  /** Connected apps: the app instances following the revocation feed. */
  apps: AppService;
  /** Approvals as apps report them (read-only: the key's user decides in the app). */
  approvals: ApprovalService;
}
