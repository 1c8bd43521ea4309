/**
 * The self-hostable cloud of `@svc/agent-access`: the `/v1` API (intent
 * manifests, violation reports, agent keys, events and agent inboxes) as one
 * fetch handler over libSQL.
 *
 * @example Run the cloud with srvx
 * ```ts ignore
 * import { createCloud } from "@svc/agent-access/cloud";
 * import { serve } from "srvx";
 *
 * const cloud = createCloud({ db: "file:./data/svc.db" });
 * await cloud.ready;
 * serve({ port: 8787, fetch: cloud.handle });
 * ```
 *
 * @module
 */
import "../core/runtime/mod.ts"; // first: Node < 22 gets one line, nothing else runs
export type { ErrorLogger } from "../core/logging/mod.ts";
export { clientAddress, type ClientAddressSource, withClientAddress } from "../core/http/mod.ts";
export {
  type Cloud,
  type CloudOptions,
  createCloud,
  DEFAULT_CLOUD_RATE_LIMITS,
  DEFAULT_RETENTION_MS,
  DEFAULT_VIOLATION_RETENTION_MS,
} from "./create_cloud.ts";
export type { DatabaseInput, LibsqlClient } from "../core/db/mod.ts";
export type { RateLimit } from "../core/abuse/mod.ts";
export type { DashboardSettings } from "./dashboard/mod.ts";
export type { SignInLimits } from "./operators/mod.ts";
