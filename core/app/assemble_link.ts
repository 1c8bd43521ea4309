/**
 * What hybrid and cloud mode build the same way around the link to the cloud: the outbox, the revocation feed's
 * follower, and, once the mode's keys exist, the cloud side (the project's auto-revoke counter, the manifest upload,
 * the cloud guard) with the parts of the link that `assembleRoutes` takes. Each mode's assembly
 * (`assemble_hybrid.ts`, `assemble_cloud.ts`) keeps what differs: its keys, its lag bound and what a revoke does.
 *
 * @module
 */
import type { Revocation } from "../contract/mod.ts";
import {
  createOutbox,
  followRevocations,
  type Outbox,
  type RevocationFollower,
  shipApprovalSteps,
  uploadManifest,
} from "../cloud_link/mod.ts";
import type { AppStorage } from "./storage/mod.ts";
import type { ModeParts } from "./assemble_routes.ts";
import { type CloudLinkBuilt, FEED_WAIT_SECONDS, type SvcBuilt } from "./svc_parts.ts";
import { type CloudGuard, startCloudGuard } from "./cloud_guard.ts";
import { createCloudAutoRevoke, revokeAtThreshold } from "./cloud_auto_revoke.ts";
import { type ScopeList, scopeNames } from "./scope_list.ts";

/**
 * Creates the outbox to the cloud on the app's storage, with the link's retry bounds, set-aside retention and limit.
 *
 * @param built The checked configuration and what was built before storage.
 * @param link The cloud's client and configuration.
 * @param storage The app's storage, open.
 * @returns The outbox.
 */
export function openOutbox(built: SvcBuilt, link: CloudLinkBuilt, storage: AppStorage): Outbox {
  const { retryMinMs, retryMaxMs, setAsideRetentionMs, outboxLimit } = link.config;
  return createOutbox({
    storage,
    cloud: link.client,
    log: built.log,
    retryMinMs,
    retryMaxMs,
    setAsideRetentionMs,
    limit: outboxLimit,
    now: built.now,
  });
}

/**
 * Follows the cloud's revocation feed.
 *
 * @param built The checked configuration and what was built before storage.
 * @param link The cloud's client and configuration.
 * @param storage The app's storage, open (it keeps the feed's cursor).
 * @param maxLagMs How long the feed may go unheard before agent routes answer `503` (`false`: no bound).
 * @param onRevoked What the mode does with the revocations heard.
 * @returns The follower.
 */
export function followFeed(
  built: SvcBuilt,
  link: CloudLinkBuilt,
  storage: AppStorage,
  maxLagMs: number | false,
  onRevoked: (revocations: readonly Revocation[]) => void,
): RevocationFollower {
  return followRevocations({
    cloud: link.client,
    storage,
    log: built.log,
    retryMinMs: link.config.retryMinMs, // not retryMaxMs, the outbox's: the feed keeps its own cap (about 1 s)
    waitSeconds: FEED_WAIT_SECONDS,
    maxLagMs,
    now: built.now,
    sleep: built.sleep,
    onRevoked,
  });
}

/** What {@linkcode startCloudSide} is given by the mode. */
export interface CloudSideOptions {
  /** The mode, as `GET /svc/health` names it. */
  mode: "hybrid" | "cloud";
  /** The scopes named in the uploaded manifest. */
  scopes: ScopeList;
  /** The outbox, from {@linkcode openOutbox}. */
  outbox: Outbox;
  /** The feed's follower, from {@linkcode followFeed}. */
  follower: RevocationFollower;
  /** The follower's lag bound (`false`: none). */
  maxLagMs: number | false;
  /** Revokes a key that reached the project's threshold through the mode's keys. */
  revoke: (keyId: string, userId: string | null) => Promise<void>;
  /** Notes an agent key's use, for the cloud's `lastUsedAt` (a no-op in cloud mode). */
  used: (keyId: string) => void;
}

/** What {@linkcode startCloudSide} starts. */
export interface CloudSide {
  /** The cloud guard (closed before the follower). */
  guard: CloudGuard;
  /** The link's parts of what `assembleRoutes` takes. */
  routes: Pick<ModeParts, "outbox" | "mirror" | "cloudPolicy" | "link" | "approvalStep" | "cloud">;
}

/**
 * Starts the cloud side once the mode's keys exist: the project's auto-revoke counter and what it does at the
 * threshold, the manifest upload (stopped when the app closes) and the cloud guard.
 *
 * @param built The checked configuration and what was built before storage.
 * @param link The cloud's client, configuration and policy.
 * @param storage The app's storage, open.
 * @param options What the mode hands in.
 * @returns The guard and the link's parts for the routes.
 */
export function startCloudSide(
  built: SvcBuilt,
  link: CloudLinkBuilt,
  storage: AppStorage,
  options: CloudSideOptions,
): CloudSide {
  const { log, now } = built;
  const { client: cloud, policy, config } = link;
  const { outbox, follower, maxLagMs } = options;
  const counter = createCloudAutoRevoke({ policy: policy.current, now });
  const reached = revokeAtThreshold({ outbox, revoke: options.revoke, log });
  uploadManifest({
    cloud,
    entries: [...built.intents.values()].map((i) => i.manifest),
    scopes: scopeNames(options.scopes),
    retryMinMs: config.retryMinMs,
    retryMaxMs: config.retryMaxMs,
    log,
    signal: built.closing,
  });
  const guard = startCloudGuard({ cloud, follower, maxLagMs, endpoint: config.endpoint, log, now });
  return {
    guard,
    routes: {
      outbox,
      mirror: true,
      cloudPolicy: { counts: counter.counts, note: counter.note, reached },
      link: {
        revocationsHeard: guard.check,
        credentialsAccepted: guard.checkCredentials,
        health: () => ({ mode: options.mode, ...guard.health() }),
        autoRevoked: counter.refused,
        used: options.used,
      },
      approvalStep: shipApprovalSteps(storage, outbox),
      cloud,
    },
  };
}
