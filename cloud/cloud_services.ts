/**
 * The features' services over the repositories: built once by `createCloud`,
 * given to the `/v1` routes through the route context and to the dashboard.
 *
 * @module
 */
import { type AppService, type AppServiceOptions, createAppService } from "./apps/mod.ts";
import { type AuditService, createAuditService } from "./audit/mod.ts";
import type { CloudRepositories } from "./database/mod.ts";
import { createInboxService, type InboxService, type InboxWaiters } from "./inbox/mod.ts";
import { createKeyService, type KeyService } from "./keys/mod.ts";
import { createProjectService, type ProjectService } from "./projects/mod.ts";
import { createViolationService, type ViolationService } from "./violations/mod.ts";

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
  /** Connected apps and the key uses hybrid apps mirror. */
  apps: AppService;
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
    keys: createKeyService(storage, waiters),
    inbox: createInboxService(storage, waiters),
    violations: createViolationService(storage, waiters),
    projects: createProjectService(storage),
    audit: createAuditService(storage),
    apps: createAppService(storage, apps),
  };
}
