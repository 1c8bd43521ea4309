/**
 * What `/v1` routes are given: the callers of its auth kinds and the cloud's
 * services, and the `defineRoute` that types a route from them.
 *
 * @module
 */
import { type DefineRoute, routeDefiner } from "../../core/http/mod.ts";
import type { AgentCaller, AuthStorage, SdkCaller } from "./auth.ts";

/** The prefix of every cloud route. */
export const CLOUD_PREFIX = "/v1";

/**
 * What every `/v1` route may be given besides a feature's services: the repositories authentication reads, the
 * long polls' re-read interval and whether the cloud is closing. Each feature's routes add the services they call.
 */
export interface CloudRouteDeps {
  /** What authentication reads. */
  storage: AuthStorage;
  /** How often a long poll re-reads the database, for events stored by other processes. */
  recheckMs: number;
  /** `true` once the cloud is closing: long polls answer at once. */
  closing(): boolean;
}

/**
 * The cloud side: SDK auth (a project's sdkSecret), agent auth (an agent key), a metrics scrape (the metrics token, or
 * a caller on this machine), or none; `D` is what its routes are
 * given (a feature's routes name the services they call; the cloud gives every route all of them).
 */
export interface CloudSide<D = CloudRouteDeps> {
  /** The caller each auth kind yields. */
  callers: { sdk: SdkCaller; agent: AgentCaller; none: null; metrics: null };
  /**
   * Its rate limits: `projectWrites` counts a project, `projectViolations` a project's violation reports (a
   * bucket of their own, so that a flood of emits never delays the reports that auto-revoke counts), `agentKey`
   * an agent key.
   */
  limits: { projectWrites: SdkCaller; projectViolations: SdkCaller; agentKey: AgentCaller };
  /** The services. */
  deps: D;
}

/** A rate limit of the cloud: the auth kind of the routes it limits and the bucket a caller of that kind takes from. */
export interface CloudLimitRule<A extends keyof CloudSide["callers"]> {
  /** The auth kind of every route naming this limit. */
  auth: A;
  /** The bucket of a caller. */
  bucket(caller: CloudSide["callers"][A]): string;
}

/** The cloud's rate limits, by the name a route gives in `limit`. */
export const cloudLimits: {
  projectWrites: CloudLimitRule<"sdk">;
  projectViolations: CloudLimitRule<"sdk">;
  agentKey: CloudLimitRule<"agent">;
} = {
  /** A project's SDK writes: one bucket per project. */
  projectWrites: { auth: "sdk", bucket: (caller) => caller.projectId },
  /** A project's violation reports, at the same rate in a bucket of their own: auto-revoke never waits behind emits. */
  projectViolations: { auth: "sdk", bucket: (caller) => `${caller.projectId}\u0000violations` },
  /** An agent key's inbox requests. Key ids are unique per project only: the bucket is the project's key. */
  agentKey: { auth: "agent", bucket: (caller) => `${caller.projectId}\u0000${caller.keyId}` },
};

/** The name of one of the cloud's rate limits. */
export type CloudLimit = keyof typeof cloudLimits;

/**
 * The `defineRoute` of a feature's `/v1` routes, typed with what they are given.
 *
 * @returns A `defineRoute` whose handlers receive `D`.
 * @example A feature's definer
 * ```ts
 * import type { ProjectService } from "../projects/mod.ts";
 * const defineRoute = cloudRouteDefiner<{ projects: ProjectService }>();
 * ```
 */
export function cloudRouteDefiner<D>(): DefineRoute<CloudSide<D>> {
  return routeDefiner<CloudSide<D>>();
}

/** Declares a `/v1` route given only {@linkcode CloudRouteDeps}. */
export const defineRoute: DefineRoute<CloudSide> = cloudRouteDefiner<CloudRouteDeps>();
