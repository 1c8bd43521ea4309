/**
 * What every mode runs on the app's storage once its keys are built: the retention schedule, the violation recorder,
 * the activity log, the intent runner and the `/svc` routes' dependencies. The mode's assembly (`assemble_local.ts`,
 * `assemble_hybrid.ts`, `assemble_cloud.ts`) hands in what differs: its keys, its outbox, its policies and its link.
 *
 * @module
 */
import type { PurgeSchedule } from "../db/mod.ts";
import type { AutoRevokePolicy } from "../contract/mod.ts";
import { createIntentRunner } from "../intents/mod.ts";
import type { KeyLifetime, KeyService } from "../keys/mod.ts";
import type { AppStorage } from "./storage/mod.ts";
import type { AppLink } from "./routes/mod.ts";
import { type CloudClient, emitEvents, type Outbox } from "../cloud_link/mod.ts";
import type { ApprovalStep } from "../contract/mod.ts";
import { type Approvals, createApprovals, decisionTokens } from "../approvals/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { startRetention } from "./app_retention.ts";
import { oauthStorage } from "../oauth/mod.ts";
import { scopeNames } from "./scope_list.ts";
import {
  createViolationRecorder,
  type ViolationRecorder,
  type ViolationRecorderOptions,
} from "./violation_recorder.ts";
import type { ModeDeps, SvcBuilt } from "./svc_parts.ts";
import type { ActivityPage } from "../contract/mod.ts";
import {
  type ActivityLog,
  activityOff,
  activityPage,
  type ActivityQuery,
  createActivityLog,
  DEFAULT_ACTIVITY_RETENTION_DAYS,
} from "../activity/mod.ts";

/** A day, in milliseconds. */
const DAY_MS = 24 * 60 * 60 * 1000;

/** What a mode hands to {@linkcode assembleRoutes}. */
export interface ModeParts {
  /** The app's storage, open. */
  storage: AppStorage;
  /** The mode's keys. */
  keys: KeyService;
  /** The outbox to the cloud (`null` in local mode): purged by retention, kicked when violations are stored. */
  outbox: Outbox | null;
  /** Whether stored violations are queued for the cloud too. */
  mirror: boolean;
  /** The app's own auto-revoke policy (`null`: none, and always in cloud mode). */
  autoRevoke: AutoRevokePolicy | null;
  /** The project's policy counted here (`null` in local mode). */
  cloudPolicy: Required<ViolationRecorderOptions>["cloudPolicy"] | null;
  /** The bounds of a key's lifetime at minting. */
  keyLifetime: () => Promise<KeyLifetime>;
  /** What the link to the cloud checks and notes on agent requests. */
  link: AppLink;
  /** Tells the cloud a step of an approval (a no-op in local mode). */
  approvalStep: ModeDeps["approvalStep"];
  /** The cloud, whose inbox hears `approval.decided` (hybrid and cloud modes; `null` in local mode). */
  cloud: CloudClient | null;
  /**
   * Where activity records go: kept here for reading (local, hybrid), queued for the cloud (hybrid, cloud); and
   * where a cloud-mode app reads them (`readCloud`, else its own storage).
   */
  activity: {
    keep: boolean;
    mirror: boolean;
    readCloud?: (userId: string, query: ActivityQuery) => Promise<ActivityPage>;
  };
}

/** What {@linkcode assembleRoutes} builds. */
export interface RouteParts {
  /** The purge of old rows. */
  retention: PurgeSchedule;
  /** Records violations. */
  recorder: ViolationRecorder;
  /** Records what agents did (closed before the outbox and the storage). */
  activity: ActivityLog;
  /** What the `/svc` routes are given. */
  deps: ModeDeps;
  /** The runs waiting for their user's decision (the mode cancels a revoked key's). */
  approvals: Approvals;
}

/**
 * Builds what every mode runs, in order: retention, the recorder, the intent runner and the routes' dependencies.
 *
 * @param built The checked configuration and what was built before storage.
 * @param parts What the mode built.
 * @returns The retention schedule, the recorder, the activity log and the routes' dependencies.
 */
export function assembleRoutes(built: SvcBuilt, parts: ModeParts): RouteParts {
  const { config, intents, log, now, bodyLimit, refusalsPerAddress } = built;
  const { storage, keys, outbox, mirror, autoRevoke, cloudPolicy, keyLifetime, link, approvalStep } = parts;
  const approvals: Approvals = createApprovals({
    db: storage.db,
    now,
    run: (intent, payload, user) => runner.runApproved(intent, payload, user),
    maxPendingPerKey: config.approvals?.maxPendingPerKey,
    pageUrl: config.approvals?.pageUrl,
    onApprovalRequested: config.onApprovalRequested,
    step: (step) =>
      void approvalStep(step).catch((e) => log("An approval's step could not be queued for the cloud", e)),
    decided: parts.cloud ? approvalInbox(parts.cloud, log) : undefined,
    // The run on approval is an activity record too (outcome ok or failed), with its approval's id.
    ran: (row, { status, code, ms }) =>
      activity.record({
        key: { id: row.keyId, userId: row.userId, agentId: row.agentId },
        intent: row.intent,
        via: "http",
        status,
        ms,
        ...code === undefined ? {} : { code },
        approvalId: row.id,
      }),
    log,
  });
  const recording = config.activity !== false;
  const retentionDays = (config.activity || undefined)?.retentionDays ?? DEFAULT_ACTIVITY_RETENTION_DAYS;
  const retention = startRetention({
    storage,
    outbox: outbox ?? undefined,
    activityRetentionMs: recording && parts.activity.keep ? retentionDays * DAY_MS : undefined,
    oauth: config.oauth ? oauthStorage(storage.db) : undefined,
    approvals,
    violationRetentionMs: config.violationRetentionMs,
    purgeIntervalMs: config.purgeIntervalMs,
    log,
    now,
  });
  const recorder = createViolationRecorder({
    storage: () => storage,
    mirror,
    autoRevoke: autoRevoke ?? undefined,
    cloudPolicy: cloudPolicy ?? undefined,
    onViolation: config.onViolation,
    stored: () => outbox?.kick(),
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
    requestApproval: (key, intent, payload) => approvals.request(key, intent, payload),
  });
  const where = parts.activity;
  const activity = !recording ? activityOff(built.runtime.elapsed) : createActivityLog({
    write: async (records) => {
      await storage.insertActivity(records, where);
      if (where.mirror) outbox?.kick();
    },
    read: where.readCloud ?? ((userId, query) => activityPage((q) => storage.listActivity(q), userId, query)),
    clientNames: (grantIds) => storage.grantClientNames(grantIds),
    runtime: built.runtime,
    log,
  });
  const deps: ModeDeps = {
    keys,
    runner,
    scopes: scopeNames(config.scopes),
    keyLifetime,
    intents,
    acceptsOtherIntents: !config.strictIntents && config.onAgentIntent !== undefined,
    bodyLimit,
    log,
    recordViolation: recorder.record,
    repeatViolation: recorder.repeat,
    now,
    addressWaitMs: refusalsPerAddress ? (req) => refusalsPerAddress.waitMs(req) : () => 0,
    link,
    approvals,
    decisionTokens: decisionTokens(storage.db, now),
    approvalStep,
    activity,
  };
  return { retention, recorder, activity, deps, approvals };
}

/**
 * Puts `approval.decided` in the inbox of the agent whose approval became final (hybrid and cloud modes), once per
 * approval and status (the event's id); a failure is logged, the agent's poll still tells the outcome.
 *
 * @param cloud The cloud's client.
 * @param log Where failures go.
 * @returns What the approvals call with each final step.
 */
function approvalInbox(cloud: CloudClient, log: ErrorLogger): (step: ApprovalStep) => void {
  return (step) => {
    if (step.agentId === null) return;
    const { approvalId, intent, status, decidedAt } = step;
    const payload = { approvalId, intent, status, decidedAt, ...step.reason ? { reason: step.reason } : {} };
    emitEvents(cloud, [{
      eventId: `${approvalId}.${status}`,
      type: "approval.decided",
      agentId: step.agentId,
      payload,
    }])
      .catch((e) => log("approval.decided could not reach the agent's inbox", e));
  };
}
