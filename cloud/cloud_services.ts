/**
 * The features' services over the repositories: built once by `createCloud`,
 * given to the `/v1` routes through the route context and to the dashboard.
 *
 * @module
 */
import { createActivityService } from "./activity/mod.ts";
import { type AppServiceOptions, createAppService } from "./apps/mod.ts";
import { createApprovalService } from "./approvals/mod.ts";
import { createAuditService } from "./audit/mod.ts";
import type { DashboardServices } from "./dashboard/mod.ts";
import type { OperationsDeps } from "./operations/mod.ts";
import type { CloudRepositories } from "./open_cloud_storage.ts";
import type { InboxWaiters } from "./feed/mod.ts";
import { createInboxService } from "./inbox/mod.ts";
import { createKeyService } from "./keys/mod.ts";
import { createProjectService } from "./projects/mod.ts";
import { createOperatorService, type OperatorServiceSeams } from "./operators/mod.ts";
import { type CloudRefusals, createViolationService } from "./violations/mod.ts";
import type { CloudRouteDeps, SdkCaller } from "./routes/mod.ts";
import type { ErrorLogger } from "../core/logging/mod.ts";

/**
 * One service per feature: the same list the dashboard is given, kept once (in the dashboard's door, which cannot
 * import the cloud's assembly).
 */
export type CloudServices = DashboardServices;

/** What every `/v1` route is given: every feature's service, the repositories, the wake-ups and the refusals. */
export interface CloudDeps extends CloudServices, CloudRouteDeps, OperationsDeps {
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
  /** Where failures that do not stop a request go (the cloud's logger). */
  log: ErrorLogger;
}

/**
 * Builds every feature's service.
 *
 * @param storage The features' repositories, over one database.
 * @param waiters Long-poll wake-ups, shared by inboxes and the revocation feed.
 * @param apps The connected apps' clock and logger.
 * @param operators The password cost of the toolkit's own tests (a seam: `createCloud` never passes one).
 * @returns The services.
 */
export function createCloudServices(
  storage: CloudRepositories,
  waiters: InboxWaiters,
  apps: AppServiceOptions = {},
  operators: OperatorServiceSeams = {},
): CloudServices {
  return {
    keys: createKeyService(storage, waiters, apps.now),
    inbox: createInboxService(storage, waiters, apps.now),
    violations: createViolationService(storage, waiters, apps.now),
    projects: createProjectService(storage, apps.now),
    audit: createAuditService(storage),
    operators: createOperatorService(storage, { now: apps.now, ...operators }),
    apps: createAppService(storage, apps),
    approvals: createApprovalService(storage, apps.now),
    activity: createActivityService(storage, apps.now, apps.logger),
  };
}
