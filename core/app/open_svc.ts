/**
 * What `createSvc` builds on the app's storage, once it is open: keys (local or the cloud's), the outbox, the
 * revocation feed's follower, the last-used mirror, the cloud's auto-revoke, the manifest upload, retention, the
 * violation recorder, the intent runner, the cloud guard and the `/svc` routes' dependencies; and their closing, in
 * reverse order.
 *
 * @module
 */
import { scopeNames } from "./scope_list.ts";
import type { PurgeSchedule } from "../db/mod.ts";
import type { RefusalsPerAddress } from "../abuse/mod.ts";
import { type CompiledIntent, createIntentRunner } from "../intents/mod.ts";
import { joinLifetimes, type KeyService } from "../keys/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { type AppStorage, openAppStorage } from "./storage/mod.ts";
import type { AppDeps } from "./routes/mod.ts";
import {
  type CloudClient,
  cloudKeys,
  type CloudPolicy,
  createOutbox,
  followRevocations,
  type LastUsedMirror,
  mirrorLastUsed,
  type Outbox,
  type RevocationFollower,
  uploadManifest,
} from "../cloud_link/mod.ts";
import { startRetention } from "./app_retention.ts";
import { oauthStorage } from "./oauth/mod.ts";
import { localKeys } from "./local_keys.ts";
import type { SvcCloudConfig, SvcConfig, SvcMode } from "./svc_config.ts";
import { HYBRID_IN_MEMORY } from "./svc_config_schema.ts";
import { createViolationRecorder, type ViolationRecorder } from "./violation_recorder.ts";
import { type CloudGuard, DEFAULT_MAX_REVOCATION_LAG_MS, startCloudGuard } from "./cloud_guard.ts";
import type { Sleep } from "../retry/mod.ts";
import { type CloudAutoRevoke, createCloudAutoRevoke, revokeAtThreshold } from "./cloud_auto_revoke.ts";

/** Seconds the app's feed polls are held open: short enough that a rotated secret is noticed within 5 s. */
const FEED_WAIT_SECONDS = 3;

/** What `createSvc` has built before storage opens: the checked configuration, the cloud link's client and clock. */
export interface SvcBuilt {
  /** The configuration, checked. */
  config: SvcConfig;
  /** `config.mode`, `"local"` when not given. */
  mode: SvcMode;
  /** The cloud's part of the configuration, in hybrid and cloud modes. */
  cloudConfig: SvcCloudConfig | undefined;
  /** The cloud's client, in hybrid and cloud modes. */
  cloud: CloudClient | undefined;
  /** The project's auto-revoke policy, followed from the cloud. */
  policy: CloudPolicy | undefined;
  /** The intents, compiled. */
  intents: Map<string, CompiledIntent>;
  /** Where failures go, redacted. */
  log: ErrorLogger;
  /** The largest request body, in bytes. */
  bodyLimit: number;
  /** The clock, in milliseconds. */
  now: () => number;
  /** How the revocation feed's retry delays are waited. */
  sleep: Sleep;
  /** Aborted when the app closes (the manifest upload stops retrying). */
  closing: AbortSignal;
  /** Refused credentials per client address, when limited. */
  refusalsPerAddress: RefusalsPerAddress | undefined;
  /** How long repeated refusals are counted in memory at most (default 1 s; a test seam). */
  repeatsStoredWithinMs?: number;
}

/** Everything {@linkcode openSvc} builds on the app's storage, closed in reverse order by {@linkcode closeSvc}. */
export interface OpenedSvc {
  /** The app's storage. */
  storage: AppStorage;
  /** The outbox to the cloud, in hybrid and cloud modes. */
  outbox: Outbox | undefined;
  /** Keys: local, or the cloud's in cloud mode. */
  keys: KeyService;
  /** The revocation feed's follower, in hybrid and cloud modes. */
  follower: RevocationFollower | undefined;
  /** What refuses agent routes and mints while revocations cannot be heard, in hybrid and cloud modes. */
  guard: CloudGuard | undefined;
  /** The last-used mirror of hybrid mode. */
  lastUsed: LastUsedMirror | undefined;
  /** The purge of old rows. */
  retention: PurgeSchedule;
  /** Records violations. */
  recorder: ViolationRecorder;
  /** What the `/svc` routes are given. */
  deps: AppDeps;
}

/**
 * Opens the app's storage and builds, in order, everything that uses it; closes the storage again if a step fails.
 *
 * @param built The checked configuration and what was built before storage.
 * @returns The parts, for the handler's dependencies and for {@linkcode closeSvc}.
 */
export async function openSvc(built: SvcBuilt): Promise<OpenedSvc> {
  const { config, mode, cloudConfig, cloud, policy, intents, log, bodyLimit, now, sleep, refusalsPerAddress } = built;
  const storage = await openAppStorage(config.storage ?? ":memory:", { authToken: config.storageAuthToken, now });
  try {
    if (mode === "hybrid" && await storage.inMemory()) throw new Error(HYBRID_IN_MEMORY); // an injected Client
    if (mode === "hybrid" && policy) {
      // The policy last read outlives a restart while the cloud cannot be read.
      await policy.attach({
        saved: () => storage.savedCloudPolicy(),
        save: (json) => storage.saveCloudPolicy(json, new Date(now()).toISOString()),
      });
    }
    const sharedInbox = config.sharedInbox ?? false;
    const mirror = mode !== "local";
    const { retryMinMs, retryMaxMs } = cloudConfig ?? {};
    const outbox = cloud && createOutbox({
      storage,
      cloud,
      log,
      retryMinMs,
      retryMaxMs,
      setAsideRetentionMs: cloudConfig?.setAsideRetentionMs,
      limit: cloudConfig?.outboxLimit,
      now,
    });
    const kick = () => outbox?.kick();
    const inCloud = config.mode === "cloud" && cloud
      ? cloudKeys(cloud, { sharedInbox, cacheTtlMs: config.cloud.keyCacheTtlMs, now })
      : undefined;
    const keys = inCloud ?? localKeys(storage, { sharedInbox, log, mirror, onQueued: kick, now });
    // Cloud mode checks each key at the cloud: the feed only drops cached verifications, so it has no bound.
    const maxLagMs = mode === "hybrid" ? cloudConfig?.maxRevocationLagMs ?? DEFAULT_MAX_REVOCATION_LAG_MS : false;
    const follower = cloud && followRevocations({
      cloud,
      storage,
      log,
      retryMinMs, // not retryMaxMs, the outbox's: the feed keeps its own cap (about 1 s)
      waitSeconds: FEED_WAIT_SECONDS,
      maxLagMs,
      now,
      sleep,
      onRevoked: (revocations) => revocations.forEach((r) => inCloud?.dropRevoked(r.keyId, r.revokedAt)),
    });
    const lastUsed = mode === "hybrid" && cloud ? mirrorLastUsed({ cloud, log, now }) : undefined;
    const cloudAutoRevoke: CloudAutoRevoke | undefined = policy && createCloudAutoRevoke({
      policy: policy.current,
      reached: revokeAtThreshold({
        settle: () => recorder.settle(),
        outbox,
        revoke: inCloud && cloud
          ? async (keyId) => {
            inCloud.dropRevoked(keyId, new Date(now()).toISOString());
            await cloud.revokeKey(keyId);
          }
          : async (keyId, userId) => {
            if (userId !== null) await keys.revoke(userId, keyId);
          },
        log,
      }),
      now,
    });
    if (cloud && cloudConfig) {
      const entries = [...intents.values()].map((i) => i.manifest);
      uploadManifest({
        cloud,
        entries,
        scopes: scopeNames(config.scopes),
        retryMinMs,
        retryMaxMs,
        log,
        signal: built.closing,
      });
    }
    const { violationRetentionMs, purgeIntervalMs } = config;
    const retention = startRetention({
      storage,
      outbox,
      oauth: config.oauth ? oauthStorage(storage.db) : undefined,
      violationRetentionMs,
      purgeIntervalMs,
      log,
      now,
    });
    const autoRevoke = config.mode === "cloud" ? undefined : config.autoRevoke;
    const recorder = createViolationRecorder({
      storage: () => storage,
      mirror,
      autoRevoke,
      cloudPolicy: cloudAutoRevoke,
      onViolation: config.onViolation,
      stored: kick,
      log,
      now,
      storedWithinMs: built.repeatsStoredWithinMs,
    });
    const runner = createIntentRunner({
      intents,
      strictIntents: config.strictIntents ?? false,
      validateResults: config.validateResults ?? false,
      onAgentIntent: config.onAgentIntent,
      recordViolation: recorder.record,
      repeatViolation: recorder.repeat,
    });
    const acceptsOtherIntents = !config.strictIntents && config.onAgentIntent !== undefined;
    const guard = cloud && follower && cloudConfig &&
      startCloudGuard({ cloud, follower, maxLagMs, endpoint: cloudConfig.endpoint, log, now });
    const deps: AppDeps = {
      keys,
      runner,
      scopes: scopeNames(config.scopes),
      // Cloud mode: the cloud applies the project's policy to the keys it mints. Hybrid: none is minted until the
      // project's policy is known (read, or kept from an earlier run).
      keyLifetime: async () =>
        joinLifetimes(
          { defaultDays: config.keys?.defaultLifetimeDays, maxDays: config.keys?.maxLifetimeDays },
          config.mode === "cloud" ? null : await policy?.mintingKeyLifetime(),
        ),
      intents,
      acceptsOtherIntents,
      bodyLimit,
      log,
      recordViolation: recorder.record,
      repeatViolation: recorder.repeat,
      now,
      addressWaitMs: refusalsPerAddress && ((req) => refusalsPerAddress.waitMs(req)),
      revocationsHeard: guard?.check,
      credentialsAccepted: guard?.checkCredentials,
      linkHealth: () => guard ? { mode, ...guard.health() } : { ok: true, mode, cloud: null },
      autoRevoked: cloudAutoRevoke?.refused,
      used: lastUsed && ((keyId) => lastUsed.used(keyId)),
    };
    return { storage, outbox, keys, follower, guard, lastUsed, retention, recorder, deps };
  } catch (error) {
    await storage.close();
    throw error;
  }
}

/**
 * Closes what {@linkcode openSvc} built, in reverse order: retention, pending violations, the cloud guard, the feed's
 * follower, the last-used mirror, the outbox, the keys, the last violations, then the storage.
 *
 * @param parts What was opened.
 * @returns When all is closed.
 */
export async function closeSvc(parts: OpenedSvc): Promise<void> {
  await parts.retention.close();
  await parts.recorder.settle();
  await parts.guard?.close();
  await parts.follower?.close();
  await parts.lastUsed?.close();
  await parts.outbox?.close();
  await parts.keys.close();
  await parts.recorder.settle();
  await parts.storage.close();
}
