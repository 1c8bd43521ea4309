/**
 * `createCloud()`: the `/v1` service as one fetch handler over libSQL.
 *
 * @module
 */
import { SvcError } from "../core/errors/mod.ts";
import { DEFAULT_VIOLATION_RETENTION_MS } from "../core/contract/mod.ts";
import type { DatabaseInput } from "../core/db/mod.ts";
import { createHandler } from "../core/http/mod.ts";
import { DEFAULT_BODY_LIMIT, errorResponse } from "../core/http/mod.ts";
import {
  defaultLogger,
  type ErrorLogger,
  isJsonLogger,
  jsonLogger,
  redactingLogger,
  requestLogFields,
} from "../core/logging/mod.ts";
import { createRateLimiter, type RateLimit, rateLimited, type RateLimiter } from "../core/abuse/mod.ts";
import { createRefusalsPerAddress } from "../core/abuse/mod.ts";
import { authenticateAgent, authenticateSdk } from "./routes/mod.ts";
import { createInboxWaiters, type InboxWaitersOptions } from "./feed/mod.ts";
import { createCloudRefusals } from "./violations/mod.ts";
import { createCloudServices } from "./cloud_services.ts";
import {
  CLOUD_PREFIX,
  type CloudDeps,
  type CloudLimit,
  cloudLimits,
  cloudRoutes,
  type CloudSide,
} from "./cloud_routes.ts";
import { openCloudStorage } from "./open_cloud_storage.ts";
import { pathnameOf } from "../core/http/mod.ts";
import {
  createDashboard,
  DASHBOARD_PREFIX,
  type DashboardSeams,
  type DashboardSettings,
  publicOrigin,
} from "./dashboard/mod.ts";
import {
  databaseName,
  MAX_PURGE_INTERVAL_MS,
  type PurgeSchedule,
  schedulePurge,
  STORAGE_FAILURE_LOG_MS,
  storageFailure,
  storageFailureLogger,
} from "../core/db/mod.ts";
import { APP_RETENTION_MS } from "./apps/mod.ts";
import { DEFAULT_ACTIVITY_RETENTION_MS } from "./activity/mod.ts";
import { authenticateMetrics, cloudMetrics } from "./operations/mod.ts";
import { type Runtime, runtimeWith } from "../core/platform/mod.ts";

/** How long acknowledged items are kept by default: 7 days. */
export const DEFAULT_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
export { DEFAULT_VIOLATION_RETENTION_MS };

/**
 * The cloud's rate limits when `rateLimit` is not given: 6000 SDK writes a minute
 * per project, 1200 requests a minute per agent key to its inbox and
 * acknowledgements, and 100 refused credentials (`401`) a minute per client
 * address (bursts up to the limit).
 */
export const DEFAULT_CLOUD_RATE_LIMITS: {
  readonly perProject: RateLimit;
  readonly perAgentKey: RateLimit;
  readonly refusalsPerAddress: RateLimit;
} = {
  perProject: { limit: 6000, windowMs: 60_000 },
  perAgentKey: { limit: 1200, windowMs: 60_000 },
  refusalsPerAddress: { limit: 100, windowMs: 60_000 },
};

/** Options of {@linkcode createCloud}. */
export interface CloudOptions {
  /** A libSQL URL (`file:…`, `:memory:`, `libsql://…`, `http://…`) or a `@libsql/client` Client (not closed by `close()`). */
  db: DatabaseInput;
  /** Auth token of a remote database (Turso). */
  authToken?: string;
  /**
   * 32 bytes in base64 (`openssl rand -base64 32`) that encrypt operators' TOTP secrets at rest; `serve` reads it
   * from `SVC_SECRET_KEY`. Once set, give it at every start. Default: secrets stored as they are.
   */
  secretKey?: string;
  /** How long acknowledged items and their events are kept, in milliseconds (default 7 days). */
  retentionMs?: number;
  /** How long violations are kept, in milliseconds (default 30 days); also approvals, counted from their expiry. */
  violationRetentionMs?: number;
  /** How often acknowledged items are purged, in milliseconds (default: the retention, at most an hour). */
  purgeIntervalMs?: number;
  /** The largest request body, in bytes (default 1 MiB). */
  bodyLimit?: number;
  /** How often a long poll re-reads the database for events of other processes, in milliseconds (default 500). */
  recheckMs?: number;
  /**
   * Where the causes of 5xx answers go (default `console.error`). Never given secrets. `"json"` (or core/logging's
   * `jsonLogger`): one JSON object a line on standard output, with `time`, `level`, `message`, and a line per
   * answered `/v1` request with its `route`, `status`, `ms`, `project` and `keyId` (`serve --log-format json`).
   */
  logger?: ErrorLogger | "json";
  /**
   * Rate limits, on by default ({@linkcode DEFAULT_CLOUD_RATE_LIMITS}). `perProject` limits each
   * project's requests to the SDK write routes (manifest, events, tooling acknowledgements, minting
   * and mirroring keys, mirrored key uses; not key verification, and never a revocation), and apart
   * from them, at the same rate, its violation reports; `perAgentKey` limits each agent key's requests
   * to its inbox and acknowledgements, apart from its project's budget; `refusalsPerAddress` limits
   * refused credentials (`401` on SDK or agent auth) per client address (`clientAddress(req)`; IPv6
   * per /64), and past it the address's refused credentials get `429` instead of `401` (its valid
   * ones are served). Over a limit the answer is `429 RATE_LIMITED` with `Retry-After`. Counted per
   * process. `false` turns a limit (or all) off.
   */
  rateLimit?:
    | { perProject?: RateLimit | false; perAgentKey?: RateLimit | false; refusalsPerAddress?: RateLimit | false }
    | false;
  /**
   * The operators' dashboard under `/dashboard` (default on); `false` turns it off, an object tunes it
   * (`publicUrl` behind a TLS proxy, session lifetimes, sign-in limits).
   */
  dashboard?: boolean | DashboardSettings;
  /**
   * The bearer token `GET /v1/metrics` asks for (`serve --metrics-token`, or `SVC_METRICS_TOKEN`). Without one, the
   * metrics are served to callers on this machine only (a loopback address, as the adapters record it).
   */
  metricsToken?: string;
}

/** A running cloud. */
export interface Cloud {
  /** Serves `/v1/*`; answers 404 elsewhere. A closure: pass it unbound. */
  handle(req: Request): Promise<Response>;
  /** Settles when the database is open and migrated; rejects when it cannot be. */
  ready: Promise<void>;
  /** Answers waiting long polls, lets in-flight requests finish, stops the purge timer and closes an owned database. */
  close(): Promise<void>;
}

/**
 * Creates the cloud service. It returns at once; the database is opened and
 * migrated in the background ({@linkcode Cloud.ready}), and requests wait for it.
 *
 * @param options The database and limits.
 * @returns The handler, its readiness and `close()`.
 * @throws {TypeError} When `dashboard.publicUrl` is not an http(s) origin.
 *
 * @example Serve the cloud on Deno
 * ```ts ignore
 * import { createCloud } from "@svc/agent-access/cloud";
 * const cloud = createCloud({ db: "file:./data/svc.db" });
 * await cloud.ready;
 * Deno.serve({ port: 8787 }, cloud.handle);
 * ```
 */
export function createCloud(options: CloudOptions): Cloud {
  return createCloudWithSeams(options);
}

/** The cloud's test seams: internal options, not part of {@linkcode CloudOptions}. */
export interface CloudSeams {
  /** The dashboard's clock and client address. */
  dashboard?: DashboardSeams;
  /** The clock of connected apps (when they were seen, their state, their purge), in milliseconds. */
  now?: () => number;
  /** The platform's parts (clock, randomness, `fetch`, `Response` class); a part left out is the platform's; `now` wins. */
  runtime?: Partial<Runtime>;
  /**
   * scrypt's log2 N for new operator passwords and the sign-in decoy (default 15, `PASSWORD_COST`): tests lower it
   * so a sign-in does not spend a second hashing. Not in {@linkcode CloudOptions}: production always hashes at 15.
   */
  passwordCost?: number;
  /** The caps on concurrent long polls (default 20 per key, 5,000 per project): tests reach them with fewer polls. */
  polls?: InboxWaitersOptions;
  /** How long a write waits for another connection's lock (default 5000 ms): tests reach STORAGE_BUSY sooner. */
  busyTimeoutMs?: number;
  /**
   * How long repeated refusals at the verify route are counted in memory at most before their count is written
   * (default 1000): a test of coalescing under a flood sets it past its run.
   */
  repeatsWrittenWithinMs?: number;
}

/**
 * {@linkcode createCloud} with its test seams; not exported from the package.
 *
 * @param options The database and limits.
 * @param seams The dashboard's clock and client address, the apps' clock, the password cost, the poll caps.
 * @returns The handler, its readiness and `close()`.
 */
export function createCloudWithSeams(options: CloudOptions, seams: CloudSeams = {}): Cloud {
  // A full disk or a locked database: one line with the fix, at most once a minute per kind.
  // The health check says `full` while a write failed for want of space within the last minute, and no write
  // succeeded since.
  let fullAt = -Infinity;
  const runtime = runtimeWith({ ...seams.runtime, now: seams.now ?? seams.runtime?.now });
  const clock = runtime.now;
  const requestLog = options.logger === "json"
    ? jsonLogger({ now: clock })
    : isJsonLogger(options.logger)
    ? options.logger
    : undefined;
  const base = requestLog ?? (options.logger as ErrorLogger | undefined) ?? defaultLogger;
  const failures = storageFailureLogger(redactingLogger(base), databaseName(options.db));
  const log: ErrorLogger = (message, cause) => {
    if (storageFailure(cause) === "full") fullAt = clock();
    failures(message, cause);
  };
  const operations = cloudMetrics(clock);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
  const violationRetentionMs = options.violationRetentionMs ?? DEFAULT_VIOLATION_RETENTION_MS;
  const waiters = createInboxWaiters(seams.polls);
  const perProject = limiter(options.rateLimit, "perProject");
  const perAgentKey = limiter(options.rateLimit, "perAgentKey");
  const refusalRate = rateOf(options.rateLimit, "refusalsPerAddress");
  const refusalsPerAddress = refusalRate ? createRefusalsPerAddress(refusalRate, clock) : undefined;
  const inFlight = new Set<Promise<Response>>();
  let closing = false;
  let purges: PurgeSchedule | undefined;

  const { dashboard: dash = true } = options;
  const { publicUrl, ...dashboardSettings } = dash === true || dash === false ? {} : dash;
  // Checked once, before the database opens, so a wrong public URL leaves nothing running.
  const site = publicUrl === undefined ? null : publicOrigin(publicUrl);
  const opened = openCloudStorage(options.db, {
    authToken: options.authToken,
    secretKey: options.secretKey,
    busyTimeoutMs: seams.busyTimeoutMs,
    observeDatabase: operations.observeDatabase,
  });
  operations.readFrom(opened);
  const ready = opened.then(async (storage) => {
    if (closing) return;
    const purge = async () => {
      const before = new Date(clock() - retentionMs).toISOString();
      const violationsBefore = new Date(clock() - violationRetentionMs).toISOString();
      // One after the other: a purge holds the write lock in short chunks, never two at once.
      await storage.inbox.purgeAcknowledged(before).catch((error) => log("Purging acknowledged items failed", error));
      await storage.violations.purgeViolations(violationsBefore).catch((error) =>
        log("Purging old violations failed", error)
      );
      // Approvals go with violations' retention, counted from their expiry.
      await storage.approvals.purgeApprovals(violationsBefore).catch((error) =>
        log("Purging old approvals failed", error)
      );
      const appsBefore = new Date(clock() - APP_RETENTION_MS).toISOString();
      await storage.apps.purgeApps(appsBefore).catch((error) => log("Purging silent apps failed", error));
      await storage.activity.purgeActivity(clock(), DEFAULT_ACTIVITY_RETENTION_MS).catch((error) =>
        log("Purging old activity failed", error)
      );
    };
    purges = schedulePurge(purge, options.purgeIntervalMs ?? Math.min(retentionMs, MAX_PURGE_INTERVAL_MS));
    await purges.purge(); // joins the first pass: done before `ready`, so it never races the first requests
  });
  ready.catch(() => {}); // surfaced through `ready` and every request's 500
  const takeProjectWrite = limitTaker("projectWrites", perProject);
  const deps: Promise<CloudDeps> = opened.then((storage) => ({
    ...createCloudServices(storage, waiters, { now: clock, logger: log }, { passwordCost: seams.passwordCost }),
    takeProjectWrite: takeProjectWrite ?? (() => {}),
    storage,
    refusals: createCloudRefusals(storage, log, { writtenWithinMs: seams.repeatsWrittenWithinMs }),
    waiters,
    recheckMs: options.recheckMs ?? 500,
    closing: () => closing,
    log,
    metrics: operations.metrics,
    async storageHealth() {
      try {
        await storage.ping();
      } catch {
        return "unreachable" as const;
      }
      return clock() - fullAt < STORAGE_FAILURE_LOG_MS ? "full" as const : "ok" as const;
    },
  }));
  const dashboard = dash === false ? undefined : createDashboard({
    ...dashboardSettings,
    ...seams.dashboard,
    site,
    services: deps,
    waiters,
    logger: log,
  });

  const handleV1 = createHandler<CloudSide<CloudDeps>>({
    elapsed: runtime.elapsed,
    prefix: CLOUD_PREFIX,
    routes: cloudRoutes,
    authenticate: {
      sdk: (req, { storage }) => authenticateSdk(req, storage),
      agent: (req, { storage }) => authenticateAgent(req, storage, clock, log),
      none: () => null,
      metrics: (req) => authenticateMetrics(req, options.metricsToken),
    },
    limits: {
      projectWrites: takeProjectWrite,
      projectViolations: limitTaker("projectViolations", perProject),
      agentKey: limitTaker("agentKey", perAgentKey),
    },
    refusalsPerAddress: refusalsPerAddress && { limit: refusalsPerAddress, counted: ["sdk", "agent"] },
    deps,
    bodyLimit,
    log,
    observe(route, status, seconds, caller) {
      operations.metrics.observeRequest(route, status, seconds);
      if (requestLog !== undefined) {
        // An SDK or agent caller names its project; an agent key, its id (never the key).
        const { projectId, keyId } = (caller ?? {}) as { projectId?: string; keyId?: string };
        requestLog.request(requestLogFields(route, status, seconds, { project: projectId, keyId }));
      }
      // A write that succeeds proves there is room again: the health check stops saying `full`.
      if (status < 400 && route !== null && route.method !== "GET") fullAt = -Infinity;
    },
  });
  function serve(req: Request): Promise<Response> {
    const path = pathnameOf(req.url);
    if (dashboard && (path === DASHBOARD_PREFIX || path.startsWith(`${DASHBOARD_PREFIX}/`))) {
      return dashboard.handle(req);
    }
    return handleV1(req);
  }

  const cloud: Cloud = {
    handle(req) {
      if (closing) {
        return Promise.resolve(errorResponse(
          new SvcError("CLOUD_UNAVAILABLE", "The cloud is shutting down", { headers: { "retry-after": "1" } }),
        ));
      }
      const task = serve(req);
      inFlight.add(task);
      task.finally(() => inFlight.delete(task));
      return task;
    },
    ready,
    async close() {
      if (closing) return;
      closing = true;
      const purged = purges?.close(); // stops the timer; storage closes after a purge under way
      waiters.close();
      await Promise.allSettled([...inFlight, purged]);
      await deps.then((d) => d.refusals.flush()).catch((error) => log("Recording repeated refusals failed", error));
      const storage = await opened.catch(() => null);
      await storage?.close();
    },
  };
  heldPolls.set(cloud, () => waiters.waiting);
  return cloud;
}

/** Each cloud's count of long polls held open (not in `mod.ts`: for the toolkit's own tests). */
const heldPolls = new WeakMap<Cloud, () => number>();

/**
 * How many long polls of `cloud` have read, found nothing and wait: what a test waits for before it acts on a held poll.
 *
 * @param cloud A cloud made by {@linkcode createCloud}.
 * @returns The polls held open (0 for an unknown object).
 */
export function waitingPolls(cloud: Cloud): number {
  return heldPolls.get(cloud)?.() ?? 0;
}

/** One of the cloud's limits: the given rate, the default, or `false` when turned off. */
function rateOf(given: CloudOptions["rateLimit"], which: keyof typeof DEFAULT_CLOUD_RATE_LIMITS): RateLimit | false {
  return given === false ? false : given?.[which] ?? DEFAULT_CLOUD_RATE_LIMITS[which];
}

/** The limiter of one of the cloud's limits, or none when turned off. */
function limiter(
  given: CloudOptions["rateLimit"],
  which: keyof typeof DEFAULT_CLOUD_RATE_LIMITS,
): RateLimiter | undefined {
  const rate = rateOf(given, which);
  return rate ? createRateLimiter(rate) : undefined;
}

/**
 * Takes a token of one of the cloud's limits for a caller, or throws `429 RATE_LIMITED`: the caller is
 * the one of the limit's auth kind (the route table test checks every limited route has that kind).
 */
function limitTaker(name: CloudLimit, limiter: RateLimiter | undefined): ((caller: unknown) => void) | undefined {
  if (!limiter) return undefined;
  const bucketOf = cloudLimits[name].bucket as (caller: unknown) => string;
  return (caller) => {
    const decision = limiter.take(bucketOf(caller));
    if (!decision.allowed) throw rateLimited(decision.retryAfterMs);
  };
}
