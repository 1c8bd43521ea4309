/**
 * `createSvc`: the app side. It serves the `/svc` routes from one
 * `handle(Request): Promise<Response>`. The configuration is checked first, at
 * once; then one `openSvc()` (`open_svc.ts`) builds everything that needs storage, in order, and
 * `close()` undoes it in reverse.
 *
 * @module
 */
import { ulid } from "ulid";
import { createHandler, DEFAULT_BODY_LIMIT } from "../http/mod.ts";
import {
  defaultLogger,
  type ErrorLogger,
  isJsonLogger,
  jsonLogger,
  redactingLogger,
  requestLogFields,
} from "../logging/mod.ts";
import { databaseName, storageFailureLogger } from "../db/mod.ts";
import { createRateLimiter, createRefusalsPerAddress, type RateLimit, rateOf } from "../abuse/mod.ts";
import { type EmitResult, type EventInput, PACKAGE_VERSION } from "../contract/mod.ts";
import { compileIntents } from "../intents/mod.ts";
import { type AppSide, SVC_PREFIX } from "./routes/mod.ts";
import { type CloudClient, createCloudClient, emitEvents, followCloudPolicy } from "../cloud_link/mod.ts";
import { authenticateAgent, limitRate, resolveUser } from "./app_callers.ts";
import type { Svc, SvcCloudConfig, SvcConfig, SvcMode, SvcRateLimitName } from "./svc_config.ts";
import { checkSvcConfig } from "./svc_config_schema.ts";
import { svcRoutes } from "./svc_routes.ts";
import { createOAuthServer, isOAuthPath, type OAuthServerOptions, oauthStorage, withOAuth } from "../oauth/mod.ts";
import { withMcpFront } from "../mcp/mod.ts";
import { scopeDefinitions, scopeNames } from "./scope_list.ts";
import type { ScopeAbout } from "../oauth/mod.ts";
import type { ManifestEntry } from "../contract/mod.ts";
import { appLabel, cloudAtStartError, credentialsState } from "./cloud_guard.ts";
import { type Sleep, sleep } from "../retry/mod.ts";
import { isSvcError, SvcError } from "../errors/mod.ts";
import { closeSvc, openSvc } from "./open_svc.ts";
import { appMetrics } from "./app_metrics.ts";
import { type Runtime, runtimeWith } from "../platform/mod.ts";

/**
 * The app's rate limits when `rateLimit` is not given: each agent key may call
 * `/svc/agent/run` and `/svc/mcp` 600 times a minute (10 a second on average,
 * bursts up to 600); each client address may present 100 refused agent keys a
 * minute (bursts up to 100), then every request from it gets `429` until a
 * token is back.
 *
 * @example Half the default budget per key
 * ```ts
 * import { DEFAULT_SVC_RATE_LIMITS } from "@svc/agent-access";
 * const rateLimit = { perKey: { ...DEFAULT_SVC_RATE_LIMITS.perKey, limit: 300 } };
 * ```
 */
export const DEFAULT_SVC_RATE_LIMITS: Readonly<Record<SvcRateLimitName, RateLimit>> = {
  perKey: { limit: 600, windowMs: 60_000 },
  refusalsPerAddress: { limit: 100, windowMs: 60_000 },
};

/**
 * Creates the app side of the toolkit. The configuration is checked at once: a mistake throws here, with
 * a message naming the option and how to write it, rather than failing at the first request.
 *
 * @param config Users, scopes, intents and storage; `mode` and `cloud` for the cloud.
 * @returns `handle`, `ready`, `violations`, `emit`, `health`, `sync` and `close`.
 * @throws {TypeError} `createSvc: …` for a configuration mistake.
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
  return createSvcWith(config, {});
}

/** What only the toolkit's own tests give {@linkcode createSvcWith}: not part of the public configuration. */
export interface SvcInternals {
  /**
   * The clock of the outbox, the retention, the rate limits, the refusal windows and the key caches, in
   * milliseconds since the epoch. Default `Date.now`.
   */
  now?: () => number;
  /** The platform's parts (clock, randomness, `fetch`, `Response` class); a part left out is the platform's; `now` wins. */
  runtime?: Partial<Runtime>;
  /** Milliseconds between two reads of the project's policy. Default 5000. */
  policyRefreshMs?: number;
  /** The HTTP client and bounds of the OAuth server's metadata document fetches. */
  clientDocuments?: OAuthServerOptions["clientDocuments"];
  /**
   * How long repeated refusals are counted in memory at most before their count is stored. Default 1000 (a crash
   * loses at most a second of counts); a test of coalescing under a flood sets it past its run.
   */
  repeatsStoredWithinMs?: number;
  /** How the revocation feed's retry delays are waited. Default `sleep` (timers). */
  sleep?: Sleep;
}

/**
 * {@linkcode createSvc} with the test seams.
 *
 * @param config The public configuration.
 * @param internals The clock.
 * @returns The app side.
 */
export function createSvcWith(config: SvcConfig, internals: SvcInternals): Svc {
  checkSvcConfig(config);
  const mode: SvcMode = config.mode ?? "local";
  const cloudConfig: SvcCloudConfig | undefined = config.mode === "hybrid" || config.mode === "cloud"
    ? config.cloud
    : undefined;
  const runtime = runtimeWith({ ...internals.runtime, now: internals.now ?? internals.runtime?.now });
  const now = runtime.now;
  // `logger: "json"`: JSON lines on standard output, one per failure and one per answered request.
  const requestLog = config.logger === "json"
    ? jsonLogger({ now })
    : isJsonLogger(config.logger)
    ? config.logger
    : undefined;
  // A full disk or a locked database: one line with the fix, at most once a minute per kind.
  const log = storageFailureLogger(
    redactingLogger(requestLog ?? (config.logger as ErrorLogger | undefined) ?? defaultLogger),
    databaseName(config.storage ?? ":memory:"),
  );
  const bodyLimit = config.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const perKeyRate = rateOf(config.rateLimit, DEFAULT_SVC_RATE_LIMITS, "perKey");
  const perKey = perKeyRate ? createRateLimiter(perKeyRate, now) : undefined;
  const perAddressRate = rateOf(config.rateLimit, DEFAULT_SVC_RATE_LIMITS, "refusalsPerAddress");
  const refusalsPerAddress = perAddressRate ? createRefusalsPerAddress(perAddressRate, now) : undefined;
  const scopes = scopeNames(config.scopes);
  const intents = compileIntents(config.intents ?? {}, scopes);
  const cloud: CloudClient | undefined = cloudConfig && createCloudClient(cloudConfig, {
    instanceId: ulid(now()),
    label: appLabel(cloudConfig.label),
    mode: mode === "cloud" ? "cloud" : "hybrid",
    sdkVersion: PACKAGE_VERSION,
    // The storage as soon as it is open (not `opened`, which may wait for the first poll: `requireAtStart`).
    outboxDepth: async () => (await assembled).storage.outboxSize(),
  }, runtime);
  const closing = new AbortController();
  const policy = cloud && followCloudPolicy({ cloud, log, refreshMs: internals.policyRefreshMs });

  /** `cloud.endpoint` when `ready` waits for the first feed poll (`cloud.requireAtStart`). */
  const requiredAtStart = cloudConfig?.requireAtStart ? cloudConfig.endpoint : undefined;
  /** Why `ready` rejected under `cloud.requireAtStart`, once the first feed poll failed. */
  let cloudAtStart: { error: Error; failure: unknown } | undefined;
  const built = {
    config,
    intents,
    log,
    bodyLimit,
    now,
    runtime,
    sleep: internals.sleep ?? sleep,
    closing: closing.signal,
    refusalsPerAddress,
    repeatsStoredWithinMs: internals.repeatsStoredWithinMs,
  };
  const link = cloudConfig && cloud && policy ? { config: cloudConfig, client: cloud, policy } : null;
  const assembled = openSvc(built, link);
  const opened = assembled.then(async (parts) => {
    const failure = requiredAtStart === undefined ? undefined : await parts.cloudLink?.follower.firstPoll;
    if (requiredAtStart === undefined || failure === undefined) return parts;
    cloudAtStart = { error: cloudAtStartError(requiredAtStart, failure), failure };
    closing.abort();
    policy?.close();
    await closeSvc(parts);
    throw cloudAtStart.error;
  });
  const ready = opened.then(() => {});
  ready.catch((e) => {
    const refusal = cloudAtStart;
    if (refusal !== undefined && e === refusal.error) log(refusal.error.message, refusal.failure);
    else log("storage could not be opened", e);
  });

  async function emitMany(events: EventInput[]): Promise<EmitResult[]> {
    if (!cloud) {
      throw new Error(
        'emit needs the cloud: use mode "hybrid" or "cloud" with cloud: { endpoint, projectId, sdkSecret }',
      );
    }
    return await emitEvents(cloud, events, { retryMinMs: cloudConfig?.retryMinMs, signal: closing.signal });
  }

  const oauthConfig = config.oauth;
  const oauth = oauthConfig && createOAuthServer({
    config: oauthConfig,
    scopes,
    scopeAbout: scopeAbout(scopeDefinitions(config.scopes), [...intents.values()].map((i) => i.manifest)),
    userResolver: config.userResolver,
    services: opened.then(({ keys, storage, recorder }) => ({
      keys,
      storage: oauthStorage(storage.db),
      recordViolation: recorder.record,
    })),
    log,
    now,
    refusalsPerAddress,
    clientDocuments: internals.clientDocuments,
  });
  // Without the `oauth` option no key is an access token: a missing scope never steps up.
  const scopeChallenge = oauth ? oauth.scopeChallenge : null;

  const metrics = appMetrics(opened, mode);
  const handle = createHandler<AppSide>({
    elapsed: runtime.elapsed,
    prefix: SVC_PREFIX,
    routes: svcRoutes({
      mcp: config.mcp !== false,
      listTools: typeof config.mcp === "object" ? config.mcp.listTools : undefined,
      openapi: config.openapi !== false,
      oauth: oauth?.routes,
    }),
    authenticate: { user: (req) => resolveUser(config.userResolver, req), agent: authenticateAgent, none: () => null },
    limits: { perKey: perKey && ((key, deps) => limitRate(key, perKey.take(key.grantId ?? key.id), deps)) },
    refusalsPerAddress: refusalsPerAddress && { limit: refusalsPerAddress, counted: ["agent"] },
    deps: opened.then((parts) => ({ ...parts.deps, scopeChallenge }), (e) => {
      const refusal = cloudAtStart;
      if (refusal === undefined || e !== refusal.error) throw e;
      const { failure } = refusal;
      const code = isSvcError(failure) && failure.code === "CLOUD_CREDENTIALS_REFUSED"
        ? "CLOUD_CREDENTIALS_REFUSED"
        : "CLOUD_UNAVAILABLE";
      throw new SvcError(code, "This app did not start: its cloud could not be reached or refused it", {
        headers: { "retry-after": "5" },
      });
    }),
    bodyLimit,
    log,
    observe(route, status, seconds, caller) {
      metrics.observeRequest(route, status, seconds);
      if (requestLog === undefined) return;
      // An agent route's caller is its verified key: its id, never the key.
      const keyId = route?.auth === "agent" ? (caller as { id?: string } | undefined)?.id : undefined;
      requestLog.request(requestLogFields(route, status, seconds, { project: cloudConfig?.projectId, keyId }));
    },
  });

  const mcpOptions = typeof config.mcp === "object" ? config.mcp : {};
  const served = withMcpFront(oauth ? withOAuth(handle, oauth) : handle, {
    publicUrl: oauthConfig?.publicUrl,
    allowedOrigins: mcpOptions.allowedOrigins,
    isOAuthPath: (path) => oauth !== undefined && isOAuthPath(path),
  });

  return {
    handle: served,
    ready,
    async violations(options = {}) {
      const { storage, recorder } = await opened;
      await recorder.settle();
      return storage.listViolations({ limit: Math.min(options.limit ?? 50, 200), keyId: options.keyId });
    },
    async emit(event) {
      return (await emitMany([event]))[0];
    },
    emitMany,
    metrics: () => metrics.text(),
    async health() {
      await ready; // one turn later than `opened`: the revocation follower has read its stored cursor
      const { storage, cloudLink, deps } = await opened;
      const outbox = cloudLink?.outbox;
      const { ok, cloud: linkHealth } = deps.link.health();
      return {
        ok,
        mode,
        cloud: linkHealth,
        revocationFeed: cloudLink?.follower.health() ?? null,
        outbox: outbox ? await storage.outboxSize() : 0,
        outboxSetAside: outbox ? await outbox.setAside() : { count: 0, reasons: [] },
        credentials: cloud ? credentialsState(cloud) : null,
        autoRevoke: policy?.current() ?? null,
      };
    },
    async sync() {
      const { cloudLink, recorder, deps } = await opened;
      const outbox = cloudLink?.outbox;
      await recorder.settle();
      await deps.activity.flush();
      if (!outbox) return 0;
      const waiting = await outbox.sync();
      const setAside = await outbox.setAside();
      if (setAside.count > 0) {
        const reasons = setAside.reasons.map((r) => `${r.count} × ${r.reason}`).join("; ");
        log(`${setAside.count} outbox items are set aside, refused by the cloud for good: ${reasons}`, undefined);
      }
      return waiting;
    },
    async close() {
      closing.abort();
      policy?.close();
      const parts = await opened.catch(() => undefined);
      if (parts === undefined) return; // openSvc() closed what it had opened
      await closeSvc(parts);
    },
  };
}

/** What each scope allows, for the consent page: its description and the titles of the intents that need it. */
function scopeAbout(
  scopes: readonly { name: string; description?: string }[],
  entries: readonly ManifestEntry[],
): Record<string, ScopeAbout> {
  return Object.fromEntries(scopes.map(({ name, description }) => [name, {
    description,
    intents: entries.filter((e) => e.requiredScopes.includes(name)).map((e) => e.title || e.name),
  }]));
}
