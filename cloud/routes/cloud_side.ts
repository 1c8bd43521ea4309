/**
 * What `/v1` routes are given: the callers of its auth kinds and the cloud's
 * services, and the `defineRoute` that types a route from them.
 *
 * @module
 */
import { type DefineRoute, routeDefiner } from "../../core/http/mod.ts";
import type { AgentCaller, SdkCaller } from "./auth.ts";
import type { InboxService, InboxWaiters } from "../inbox/mod.ts";
import type { CloudRefusals, ViolationService } from "../violations/mod.ts";
import type { KeyService } from "../keys/mod.ts";
import type { ProjectService } from "../projects/mod.ts";
import type { AuditService } from "../audit/mod.ts";
import type { AppService } from "../apps/mod.ts";
import type { CloudRepositories } from "../database/mod.ts";

/** The prefix of every cloud route. */
export const CLOUD_PREFIX = "/v1";

/** What every `/v1` route may use: the features' services (and their repositories, for authentication). */
export interface CloudDeps {
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
  /**
   * Takes a token of the project's write budget (`projectWrites`) for a route that draws from it only for some
   * requests (the mirror of a key, except when it revokes); throws `429 RATE_LIMITED` when none is left.
   */
  takeProjectWrite(caller: SdkCaller): void;
  /** The features' repositories, read by authentication. */
  storage: CloudRepositories;
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
  /**
   * Its rate limits: `projectWrites` counts a project, `projectViolations` a project's violation reports (a
   * bucket of their own, so that a flood of emits never delays the reports that auto-revoke counts), `agentKey`
   * an agent key.
   */
  limits: { projectWrites: SdkCaller; projectViolations: SdkCaller; agentKey: AgentCaller };
  /** The services. */
  deps: CloudDeps;
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

/** Declares a `/v1` route. */
export const defineRoute: DefineRoute<CloudSide> = routeDefiner<CloudSide>();
