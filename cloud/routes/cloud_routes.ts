/**
 * The `/v1` route table: every route of the cloud, grouped by resource, each
 * with its schemas and its handler. `createCloud` dispatches on it; tests and
 * the OpenAPI document walk it.
 *
 * @module
 */
import type { Route } from "../../core/http/route.ts";
import { openApiRoute } from "./cloud_openapi.ts";
import type { CloudSide } from "./cloud_side.ts";
import { eventRoutes } from "../inbox/event_routes.ts";
import { inboxRoutes } from "../inbox/inbox_routes.ts";
import { keyRoutes } from "../keys/key_routes.ts";
import { manifestRoutes } from "../projects/manifest_routes.ts";
import { violationRoutes } from "../violations/violation_routes.ts";
import { revocationRoutes } from "../keys/revocation_routes.ts";
import { policyRoutes } from "../violations/policy_routes.ts";
import { auditRoutes } from "../audit/audit_routes.ts";

export { CLOUD_PREFIX, type CloudDeps, type CloudSide } from "./cloud_side.ts";
export { cloudOpenApiDocument } from "./cloud_openapi.ts";

const resources: Route<CloudSide>[] = [
  ...manifestRoutes,
  ...violationRoutes,
  ...eventRoutes,
  ...inboxRoutes,
  ...revocationRoutes,
  ...keyRoutes,
  ...policyRoutes,
  ...auditRoutes,
];

/** Every `/v1` route, its OpenAPI document included. */
export const cloudRoutes: readonly Route<CloudSide>[] = [...resources, openApiRoute(resources)];
