/**
 * The parts of an app, for the assembly of each mode (`assemble_local.ts`, `assemble_hybrid.ts`,
 * `assemble_cloud.ts`): what `createSvc` has built before storage opens, the cloud link's client and policy, and what
 * an assembly hands back.
 *
 * @module
 */
import type { RefusalsPerAddress } from "../abuse/mod.ts";
import type { CompiledIntent } from "../intents/mod.ts";
import type { KeyService } from "../keys/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { Sleep } from "../retry/mod.ts";
import { type AppStorage, openAppStorage } from "./storage/mod.ts";
import type { AppDeps } from "./routes/mod.ts";
import type { CloudClient, CloudPolicy, Outbox, RevocationFollower } from "../cloud_link/mod.ts";
import type { SvcCloudConfig, SvcConfig } from "./svc_config.ts";
import type { ViolationRecorder } from "./violation_recorder.ts";
import type { Runtime } from "../platform/mod.ts";

/** Seconds the app's feed polls are held open: short enough that a rotated secret is noticed within 5 s. */
export const FEED_WAIT_SECONDS = 3;

/** What `createSvc` has built before storage opens, in every mode. */
export interface SvcBuilt {
  /** The configuration, checked. */
  config: SvcConfig;
  /** The intents, compiled. */
  intents: Map<string, CompiledIntent>;
  /** Where failures go, redacted. */
  log: ErrorLogger;
  /** The largest request body, in bytes. */
  bodyLimit: number;
  /** The clock, in milliseconds. */
  now: () => number;
  /** The runtime: the activity log's randomness and monotonic clock. */
  runtime: Pick<Runtime, "now" | "random" | "elapsed">;
  /** How the revocation feed's retry delays are waited. */
  sleep: Sleep;
  /** Aborted when the app closes (the manifest upload stops retrying). */
  closing: AbortSignal;
  /** Refused credentials per client address (`undefined`: not limited). */
  refusalsPerAddress: RefusalsPerAddress | undefined;
  /** How long repeated refusals are counted in memory at most (`undefined`: the recorder's 1 s; a test seam). */
  repeatsStoredWithinMs: number | undefined;
}

/** What `createSvc` has built of the link to the cloud before storage opens (hybrid and cloud modes). */
export interface CloudLinkBuilt {
  /** The cloud's part of the configuration. */
  config: SvcCloudConfig;
  /** The cloud's client. */
  client: CloudClient;
  /** The project's policy, followed from the cloud. */
  policy: CloudPolicy;
}

/** What the `/svc` routes are given by the mode: all but the OAuth server's step-up, which `createSvc` adds. */
export type ModeDeps = Omit<AppDeps, "scopeChallenge">;

/** The parts of the cloud link that `createSvc` reads (health, sync, the first feed poll). */
export interface OpenedCloudLink {
  /** The outbox to the cloud. */
  outbox: Outbox;
  /** The revocation feed's follower. */
  follower: RevocationFollower;
}

/** What a mode's assembly built on the app's storage. */
export interface OpenedSvc {
  /** The app's storage. */
  storage: AppStorage;
  /** Keys: local, or the cloud's in cloud mode. */
  keys: KeyService;
  /** Records violations. */
  recorder: ViolationRecorder;
  /** What the `/svc` routes are given. */
  deps: ModeDeps;
  /** The outbox and the feed's follower (`null` in local mode). */
  cloudLink: OpenedCloudLink | null;
  /** Closes every part in reverse order, the storage last. */
  close(): Promise<void>;
}

/**
 * Opens the app's storage (`config.storage`, `:memory:` when not given).
 *
 * @param built The checked configuration and the clock.
 * @returns The storage, open.
 */
export function openStorage({ config, now }: SvcBuilt): Promise<AppStorage> {
  return openAppStorage(config.storage ?? ":memory:", { authToken: config.storageAuthToken, now });
}
