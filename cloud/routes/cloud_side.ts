/**
 * What `/v1` routes are given: the callers of its auth kinds and the cloud's
 * services, and the `defineRoute` that types a route from them.
 *
 * @module
 */
import { type DefineRoute, routeDefiner } from "../../core/http/route.ts";
import type { AgentCaller, SdkCaller } from "../auth.ts";
import type { InboxWaiters } from "../inbox_waiters.ts";
import type { CloudRefusals } from "../refusals.ts";
import type { CloudStorage } from "../storage/cloud_storage.ts";

/** The prefix of every cloud route. */
export const CLOUD_PREFIX = "/v1";

/** What every `/v1` route may use. */
export interface CloudDeps {
  /** The database. */
  storage: CloudStorage;
  /** Long-poll wake-ups. */
  waiters: InboxWaiters;
  /** How often a long poll re-reads the database, for events stored by other processes. */
  recheckMs: number;
  /** Repeated refusals, written once per key and window. */
  refusals: CloudRefusals;
  /** `true` once the cloud is closing: long polls answer at once. */
  closing(): boolean;
}

/** The cloud side: SDK auth (a project's sdkSecret), agent auth (an agent key), or none. */
export interface CloudSide {
  /** The caller each auth kind yields. */
  callers: { sdk: SdkCaller; agent: AgentCaller; none: null };
  /** Its rate limits: `projectWrites` counts a project, `agentKey` an agent key. */
  limits: { projectWrites: SdkCaller; agentKey: AgentCaller };
  /** The services. */
  deps: CloudDeps;
}

/** Declares a `/v1` route. */
export const defineRoute: DefineRoute<CloudSide> = routeDefiner<CloudSide>();
