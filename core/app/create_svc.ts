/**
 * `createSvc`: the app side. It serves the `/svc` routes from one
 * `handle(Request): Promise<Response>`.
 *
 * @module
 */
import { ulid } from "ulid";
import { SvcError } from "../contract/errors.ts";
import { AGENT_KEY_PREFIX, bearerToken, unauthorized } from "../contract/secrets.ts";
import { newViolation } from "../contract/violation.ts";
import { createHandler } from "../http/dispatch.ts";
import { DEFAULT_BODY_LIMIT, defaultLogger, redactingLogger } from "../http/json.ts";
import { createRateLimiter, type RateDecision, type RateLimit, rateLimited } from "../http/rate_limiter.ts";
import { createRefusalsPerAddress } from "../http/refusals_per_address.ts";
import { pathnameOf } from "../http/router.ts";
import type { AppStorage } from "./app_storage.ts";
import { type AppDeps, type AppSide, SVC_PREFIX } from "./app_side.ts";
import { type CloudClient, createCloudClient, type EmitResult, type EventInput } from "./cloud_client.ts";
import { cloudKeys } from "./cloud_keys.ts";
import { autoRevokePolicySchema } from "../contract/auto_revoke.ts";
import { followRevocations, type RevocationFollower } from "./revocation_follower.ts";
import { startRetention } from "./app_retention.ts";
import type { PurgeSchedule } from "../db/purge_schedule.ts";
import { compileIntents } from "./intents.ts";
import { createIntentRunner } from "./intent_runner.ts";
import type { KeyService, VerifiedKey } from "./key_service.ts";
import { openAppStorage } from "./libsql_app_storage.ts";
import { localKeys } from "./local_keys.ts";
import { uploadManifest } from "./manifest_upload.ts";
import { createOutbox, type Outbox } from "./outbox.ts";
import type { Svc, SvcConfig } from "./svc_config.ts";
import { svcRoutes } from "./svc_routes.ts";
import { createViolationRecorder } from "./violation_recorder.ts";
import { createOAuthServer, oauthStorage, withOAuth } from "./oauth/mod.ts";
import { isExpired } from "../contract/agent_keys.ts";

export type { Svc, SvcCloudConfig, SvcConfig, SvcMode } from "./svc_config.ts";

/**
 * The app's rate limits when `rateLimit` is not given: each agent key may call
 * `/svc/agent/run` and `/svc/mcp` 600 times a minute (10 a second on average,
 * bursts up to 600); each client address may present 100 refused agent keys a
 * minute (bursts up to 100), then every request from it gets `429` until a
 * token is back.
 */
export const DEFAULT_SVC_RATE_LIMITS: { readonly perKey: RateLimit; readonly refusalsPerAddress: RateLimit } = {
  perKey: { limit: 600, windowMs: 60_000 },
  refusalsPerAddress: { limit: 100, windowMs: 60_000 },
};

/**
 * Creates the app side of the toolkit.
 *
 * @param config Users, scopes, intents and storage.
 * @returns `handle`, `ready`, `violations` and `close`.
 *
 * @example Serve /svc beside an app's own routes on Deno
 * ```ts
 * import { z } from "zod";
 * import { createSvc, defineIntent } from "@svc/agent-access";
 *
 * const svc = createSvc({
 *   userResolver: (req) => req.headers.get("x-demo-user"),
 *   scopes: ["notes:read"],
 *   storage: "file:./data/app.db",
 *   intents: [defineIntent({
 *     name: "notes.count",
 *     title: "Count notes",
 *     requiredScopes: ["notes:read"],
 *     output: z.object({ count: z.number() }),
 *     handler: () => ({ count: 3 }),
 *   })],
 * });
 * // Deno.serve(withSvc(svc, app)); // /svc/* to the toolkit, everything else to the app
 * ```
 */
export function createSvc(config: SvcConfig): Svc {
  const mode = config.mode ?? "local";
  if (!["local", "hybrid", "cloud"].includes(mode)) throw new Error(`Unknown mode "${mode}"`);
  if (mode !== "local" && !config.cloud) {
    throw new Error(`mode "${mode}" needs cloud: { endpoint, projectId, sdkSecret }`);
  }
  if (mode === "hybrid" && isInMemory(config.storage)) throw new Error(HYBRID_IN_MEMORY);
  for (const name of ["violationRetentionMs", "purgeIntervalMs"] as const) positive(config[name], name);
  for (const name of ["setAsideRetentionMs", "outboxLimit"] as const) positive(config.cloud?.[name], `cloud.${name}`);
  const log = redactingLogger(config.logger ?? defaultLogger);
  const bodyLimit = config.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const rate = <K extends keyof typeof DEFAULT_SVC_RATE_LIMITS>(which: K) =>
    config.rateLimit === false ? false : config.rateLimit?.[which] ?? DEFAULT_SVC_RATE_LIMITS[which];
  const perKeyRate = rate("perKey");
  const perKey = perKeyRate ? createRateLimiter(perKeyRate) : undefined;
  const perAddressRate = rate("refusalsPerAddress");
  const refusalsPerAddress = perAddressRate ? createRefusalsPerAddress(perAddressRate) : undefined;
  const intents = compileIntents(config.intents ?? {}, config.scopes);
  const cloud: CloudClient | undefined = mode === "local" ? undefined : createCloudClient(config.cloud!);
  const mirror = mode !== "local";
  const autoRevoke = config.autoRevoke === undefined ? undefined : autoRevokePolicySchema.parse(config.autoRevoke);
  if (config.oauth && mode === "cloud") {
    throw new Error("oauth needs the keys the app keeps (local or hybrid mode); cloud mode keys cannot expire yet");
  }
  if (autoRevoke && mode === "cloud") {
    throw new Error(
      "autoRevoke applies to keys the app keeps; in cloud mode set the project's policy (PUT /v1/sdk/policy)",
    );
  }

  let storage: AppStorage | undefined;
  let keys: KeyService | undefined;
  let outbox: Outbox | undefined;
  let follower: RevocationFollower | undefined;
  let retention: PurgeSchedule | undefined;
  const closing = new AbortController();
  const recorder = createViolationRecorder({
    storage: () => storage!,
    mirror,
    autoRevoke,
    onViolation: config.onViolation,
    stored: () => outbox?.kick(),
    log,
  });
  const recordViolation = recorder.record;

  const deps: Promise<AppDeps> = (async () => {
    storage = await openAppStorage(config.storage ?? ":memory:", { authToken: config.storageAuthToken });
    if (mode === "hybrid" && await storage.inMemory()) throw new Error(HYBRID_IN_MEMORY); // an injected Client
    const sharedInbox = config.sharedInbox ?? false;
    if (cloud) {
      const { retryMinMs, retryMaxMs, setAsideRetentionMs, outboxLimit: limit } = config.cloud!;
      outbox = createOutbox({ storage, cloud, log, retryMinMs, retryMaxMs, setAsideRetentionMs, limit });
      uploadManifest({
        cloud,
        entries: [...intents.values()].map((i) => i.manifest),
        scopes: config.scopes,
        projectId: config.cloud!.projectId,
        retryMinMs,
        retryMaxMs,
        log,
        signal: closing.signal,
      });
    }
    const inCloud = mode === "cloud"
      ? cloudKeys(cloud!, { sharedInbox, cacheTtlMs: config.cloud!.keyCacheTtlMs })
      : undefined;
    keys = inCloud ?? localKeys(storage, { sharedInbox, log, mirror, onQueued: () => outbox?.kick() });
    if (cloud) {
      follower = followRevocations({
        cloud,
        storage,
        log,
        retryMinMs: config.cloud!.retryMinMs,
        retryMaxMs: config.cloud!.retryMaxMs,
        onRevoked: (revocations) => revocations.forEach((r) => inCloud?.dropRevoked(r.keyId, r.revokedAt)),
      });
    }
    const { violationRetentionMs, purgeIntervalMs } = config;
    retention = startRetention({ storage, outbox, violationRetentionMs, purgeIntervalMs, log });
    const runner = createIntentRunner({
      intents,
      strictIntents: config.strictIntents ?? false,
      validateResults: config.validateResults ?? false,
      onAgentIntent: config.onAgentIntent,
      recordViolation,
    });
    const acceptsOtherIntents = !config.strictIntents && config.onAgentIntent !== undefined;
    return { keys, runner, scopes: config.scopes, intents, acceptsOtherIntents, bodyLimit, log };
  })();
  const ready = deps.then(() => {});
  ready.catch((e) => log("storage could not be opened", e));

  async function emitMany(events: EventInput[]): Promise<EmitResult[]> {
    if (!cloud) {
      throw new Error(
        'emit needs the cloud: use mode "hybrid" or "cloud" with cloud: { endpoint, projectId, sdkSecret }',
      );
    }
    return await cloud.postEvents(events.map((e) => ({ ...e, eventId: e.eventId ?? ulid() })));
  }

  async function resolveUser(req: Request): Promise<string> {
    const user = await config.userResolver(req);
    if (typeof user !== "string" || user.length === 0) {
      throw new SvcError("UNAUTHORIZED", "Sign in to manage agent keys");
    }
    if (user.length > MAX_USER_ID) {
      // The cloud keeps user ids (and agentIds) to 200 characters: refuse here what it would refuse later.
      throw new SvcError("VALIDATION_ERROR", "Invalid request", {
        details: { issues: [{ path: "userId", message: `The signed-in user's id is over ${MAX_USER_ID} characters` }] },
      });
    }
    return user;
  }

  async function authenticateAgent(req: Request, { keys }: AppDeps): Promise<VerifiedKey> {
    const secret = bearerToken(req, AGENT_KEY_PREFIX);
    if (secret === null) {
      throw unauthorized("An agent key is required: Authorization: Bearer svc_live_…");
    }
    const key = await keys.verify(secret);
    if (key !== null && key.revokedAt === null && isExpired(key, Date.now())) {
      recordViolation(newViolation("EXPIRED_KEY", {
        keyId: key.id,
        userId: key.userId,
        message: "An expired key was used",
        metadata: { method: req.method, path: pathnameOf(req.url).slice(0, 200), expiresAt: key.expiresAt },
      }));
      throw unauthorized("Invalid agent key");
    }
    if (key === null || key.revokedAt !== null) {
      if (key !== null) {
        recordViolation(newViolation("REVOKED_KEY", {
          keyId: key.id,
          userId: key.userId,
          message: "A revoked key was used",
          metadata: { method: req.method, path: pathnameOf(req.url).slice(0, 200) },
        }));
      }
      throw unauthorized("Invalid agent key");
    }
    return key;
  }

  /** Refuses a request over the key's rate; the first refusal in a row is recorded. */
  function limitRate(key: VerifiedKey, decision: RateDecision): void {
    if (decision.allowed) return;
    if (decision.first) {
      recordViolation(newViolation("RATE_LIMITED", {
        keyId: key.id,
        userId: key.userId,
        message: "The key went over its rate limit",
        metadata: { retryAfterMs: decision.retryAfterMs },
      }));
    }
    throw rateLimited(decision.retryAfterMs);
  }

  const handle = createHandler<AppSide>({
    prefix: SVC_PREFIX,
    routes: svcRoutes({ mcp: config.mcp !== false, openapi: config.openapi !== false }),
    authenticate: { user: resolveUser, agent: authenticateAgent, none: () => null },
    limits: {
      perKey: perKey && ((caller) => limitRate(caller as VerifiedKey, perKey.take((caller as VerifiedKey).id))),
    },
    refusalsPerAddress: refusalsPerAddress && { limit: refusalsPerAddress, counted: ["agent"] },
    deps,
    bodyLimit,
    log,
  });

  const oauth = config.oauth && createOAuthServer({
    config: config.oauth,
    scopes: config.scopes,
    userResolver: config.userResolver,
    services: deps.then(({ keys }) => ({ keys, storage: oauthStorage(storage!.db) })),
    log,
  });

  return {
    handle: oauth ? withOAuth(handle, oauth) : handle,
    ready,
    async violations(options = {}) {
      await ready;
      await recorder.settle();
      return storage!.listViolations({ limit: Math.min(options.limit ?? 50, 200), keyId: options.keyId });
    },
    async emit(event) {
      return (await emitMany([event]))[0];
    },
    emitMany,
    async health() {
      await ready;
      return { mode, revocationFeed: follower?.health() ?? null, outbox: outbox ? await storage!.outboxSize() : 0 };
    },
    async sync() {
      await ready;
      await recorder.settle();
      return outbox ? await outbox.sync() : 0;
    },
    async close() {
      closing.abort();
      await ready.catch(() => {});
      await retention?.close();
      await recorder.settle();
      await follower?.close();
      await outbox?.close();
      await keys?.close();
      await recorder.settle();
      await storage?.close();
    },
  };
}

/** Why hybrid mode refuses an in-memory `storage` (a URL, at once; an injected Client, when `ready` settles). */
const HYBRID_IN_MEMORY = 'mode "hybrid" keeps its agent keys in `storage` and mirrors them to the cloud: on :memory: ' +
  "the app would forget them at a restart while the cloud still accepts them. Give `storage` a file: (or remote) " +
  'URL, such as "file:./data/app.db", or a libSQL Client on one';

/** Refuses an option that is given but is not a positive number. */
function positive(value: number | undefined, name: string): void {
  if (value !== undefined && !(value > 0 && Number.isFinite(value))) {
    throw new Error(`${name} must be a positive number of ${name.endsWith("Ms") ? "milliseconds" : "items"}`);
  }
}

/** Whether a storage setting is an in-memory database (the default). */
function isInMemory(storage: SvcConfig["storage"]): boolean {
  return storage === undefined || (typeof storage === "string" && /^(file:)?:memory:/.test(storage));
}

/** The longest user id, as the cloud stores it. */
const MAX_USER_ID = 200;
