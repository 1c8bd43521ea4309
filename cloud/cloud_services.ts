/**
 * The features' services over the repositories: built once by `createCloud`,
 * given to the `/v1` routes through the route context and to the dashboard.
 *
 * @module
 */
import { type AppService, type AppServiceOptions, createAppService } from "./apps/mod.ts";
import { type AuditService, createAuditService } from "./audit/mod.ts";
import type { CloudRepositories } from "./open_cloud_storage.ts";
import { createInboxService, type InboxService, type InboxWaiters } from "./inbox/mod.ts";
import { createKeyService, type KeyService } from "./keys/mod.ts";
import { createProjectService, type ProjectService } from "./projects/mod.ts";
import { createOperatorService, type OperatorService } from "./operators/mod.ts";
import { type CloudRefusals, createViolationService, type ViolationService } from "./violations/mod.ts";
import type { CloudRouteDeps, SdkCaller } from "./routes/mod.ts";

/** One service per feature. */
export interface CloudServices {
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
  /** Operators: sign-in, sessions, setup, two-factor, account changes and administration. */
  operators: OperatorService;
  /** Connected apps and the key uses hybrid apps mirror. */
  apps: AppService;
}

/** What every `/v1` route is given: every feature's service, the repositories, the wake-ups and the refusals. */
export interface CloudDeps extends CloudServices, CloudRouteDeps {
  /** The features' repositories, read by authentication. */
  storage: CloudRepositories;
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
  /** Repeated refusals, written once per key and window. */
  refusals: CloudRefusals;
  /**
   * Takes a token of the project's write budget (`projectWrites`) for a route that draws from it only for some
   * requests (the mirror of a key, except when it revokes); throws `429 RATE_LIMITED` when none is left.
   */
  takeProjectWrite(caller: SdkCaller): void;
}

/**
 * Builds every feature's service.
 *
 * @param storage The features' repositories, over one database.
 * @param waiters Long-poll wake-ups, shared by inboxes and the revocation feed.
 * @param apps The connected apps' clock and logger.
 * @returns The services.
 */
export function createCloudServices(
  storage: CloudRepositories,
  waiters: InboxWaiters,
  apps: AppServiceOptions = {},
): CloudServices {
  return {
    keys: createKeyService(storage, waiters, apps.now),
    inbox: createInboxService(storage, waiters),
    violations: createViolationService(storage, waiters),
    projects: createProjectService(storage),
    audit: createAuditService(storage),
    operators: createOperatorService(storage),
    apps: createAppService(storage, apps),
  };
}
