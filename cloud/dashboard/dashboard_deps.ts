/**
 * What the dashboard is given: the features' services (every change a page makes goes through them) and the
 * features' repositories it still reads. The cloud's assembly gives it its own, which have every member here.
 *
 * @module
 */
import type { AuditRepository, AuditService } from "../audit/mod.ts";
import type { InboxRepository, InboxService } from "../inbox/mod.ts";
import type { KeyRepository, KeyService } from "../keys/mod.ts";
import type { OperatorRepository, OperatorService } from "../operators/mod.ts";
import type { ProjectRepository, ProjectService } from "../projects/mod.ts";
import type { ViolationRepository, ViolationService } from "../violations/mod.ts";

/** The features' repositories the dashboard reads. */
export interface DashboardRepositories {
  /** Projects, their secrets, manifests, administration and settings. */
  projects: ProjectRepository;
  /** Agent keys, their claims and the revocation feed. */
  keys: KeyRepository;
  /** Violations, their chart and auto-revoke. */
  violations: ViolationRepository;
  /** Events and inboxes. */
  inbox: InboxRepository;
  /** Operators, sessions and the setup token. */
  operators: OperatorRepository;
  /** The audit log. */
  audit: AuditRepository;
}

/** The features' services the dashboard calls. */
export interface DashboardServices {
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
}
