/**
 * The `/v1` route table: every route of the cloud, grouped by resource, each
 * with its schemas and its handler. `createCloud` dispatches on it; tests and
 * the OpenAPI document walk it.
 *
 * @module
 */
import type { Route } from "../core/http/mod.ts";
import { openApiRoute } from "./cloud_openapi.ts";
import type { CloudSide } from "./routes/mod.ts";
import type { CloudDeps } from "./cloud_services.ts";
import { eventRoutes } from "./inbox/mod.ts";
import { deadLetterRoutes, inboxRoutes } from "./inbox/mod.ts";
import { keyRoutes } from "./keys/mod.ts";
import { manifestRoutes } from "./projects/mod.ts";
import { violationRoutes } from "./violations/mod.ts";
import { revocationRoutes } from "./keys/mod.ts";
import { policyRoutes } from "./violations/mod.ts";
import { auditRoutes } from "./audit/mod.ts";
import { appRoutes } from "./apps/mod.ts";
import { approvalRoutes } from "./approvals/mod.ts";
import { activityRoutes } from "./activity/mod.ts";
import { operationsRoutes } from "./operations/mod.ts";

export { CLOUD_PREFIX, type CloudLimit, cloudLimits, type CloudSide } from "./routes/mod.ts";
export type { CloudDeps } from "./cloud_services.ts";
export { cloudOpenApiDocument } from "./cloud_openapi.ts";

const resources: Route<CloudSide<CloudDeps>>[] = [
  ...manifestRoutes,
  ...violationRoutes,
  ...eventRoutes,
  ...inboxRoutes,
  ...deadLetterRoutes,
  ...revocationRoutes,
  ...keyRoutes,
  ...policyRoutes,
  ...auditRoutes,
  ...appRoutes,
  ...approvalRoutes,
  ...activityRoutes,
  ...operationsRoutes,
];

/** Every `/v1` route, its OpenAPI document included. */
export const cloudRoutes: readonly Route<CloudSide<CloudDeps>>[] = [...resources, openApiRoute(resources)];
