/**
 * `createSvc`: the app side. It serves the `/svc` routes from one
 * `handle(Request): Promise<Response>`.
 *
 * @module
 */
import { ulid } from "ulid";
import {
  type CloudClient,
  type CloudConfig,
  createCloudClient,
  type EmitResult,
  type EventInput,
} from "./cloud_client.ts";
import { cloudKeys } from "./cloud_keys.ts";
import type { DatabaseInput } from "./database.ts";
import { createOutbox, type Outbox } from "./outbox.ts";
import { backoffDelay, sleep } from "./backoff.ts";
import { SvcError } from "./errors.ts";
import { DEFAULT_BODY_LIMIT, type ErrorLogger, errorResponse, readJson } from "./http.ts";
import { compileIntents, type IntentRegistry } from "./intents.ts";
import { createIntentRunner, type FallbackHandler } from "./intent_runner.ts";
import type { KeyService, VerifiedKey } from "./key_service.ts";
import { openAppStorage } from "./libsql_storage.ts";
import { localKeys } from "./local_keys.ts";
import { createRateLimiter, type RateDecision, type RateLimit, rateLimited } from "./rate_limiter.ts";
import { createRouter } from "./router.ts";
import { AGENT_KEY_PREFIX, bearerToken } from "./secrets.ts";
import type { AppStorage } from "./storage.ts";
import type { SvcContext, SvcRoute } from "./svc_route.ts";
import { svcRoutes } from "./svc_routes.ts";
import { parseOrThrow } from "./validation.ts";
import { createViolationQueue } from "./violation_queue.ts";
import { newViolation, type Violation } from "./violations.ts";

/**
 * Where keys live and whether the cloud is used: `local` (keys in `storage`, no
 * cloud), `hybrid` (keys in `storage`, mirrored to the cloud; events and reports
 * through the cloud), `cloud` (keys in the cloud).
 */
export type SvcMode = "local" | "hybrid" | "cloud";

/** The cloud settings of hybrid and cloud modes. */
export interface SvcCloudConfig extends CloudConfig {
  /** First retry delay of the outbox and the manifest upload, in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay, in milliseconds. Default 30000. */
  retryMaxMs?: number;
  /** How long cloud mode trusts a key verification, in milliseconds. Default 2000. */
  keyCacheTtlMs?: number;
}

/** The configuration of {@linkcode createSvc}. */
export interface SvcConfig {
  /** The signed-in user of a request, from the app's own session; `null` when signed out. */
  userResolver: (req: Request) => string | null | undefined | Promise<string | null | undefined>;
  /** The scope names the app supports. */
  scopes: readonly string[];
  /** The intents, keyed by name (or an array): the source of truth. */
  intents?: IntentRegistry;
  /** Refuse intents outside the registry even when `onAgentIntent` is set. Default `false`. */
  strictIntents?: boolean;
  /** Check every result against its intent's output schema (`RESULT_VALIDATION_ERROR` on failure). Default `false`. */
  validateResults?: boolean;
  /** Runs intents outside the registry, unless `strictIntents`. */
  onAgentIntent?: FallbackHandler;
  /** Called with every recorded violation. */
  onViolation?: (violation: Violation) => void | Promise<void>;
  /** `local` (default), `hybrid` or `cloud`. */
  mode?: SvcMode;
  /** Endpoint, projectId and sdkSecret: required in hybrid and cloud modes. */
  cloud?: SvcCloudConfig;
  /**
   * Where keys (local, hybrid), violations and the outbox to the cloud live: a libSQL URL or Client.
   * Default `:memory:` (lost on restart).
   */
  storage?: DatabaseInput;
  /** Auth token for a remote `storage` URL. */
  storageAuthToken?: string;
  /** Allow agentId `default`: one inbox shared by every agent of the app. Default `false`. */
  sharedInbox?: boolean;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Rate limits, off by default. `perKey` limits `/svc/agent/run` per agent key: over it the answer is
   * `429 RATE_LIMITED` with `Retry-After`, and one `RATE_LIMITED` violation is recorded per run of refusals.
   */
  rateLimit?: { perKey?: RateLimit };
  /** Where causes of 5xx answers and background failures are logged. Default `console.error`. */
  logger?: ErrorLogger;
  /** Serve the Model Context Protocol at `POST /svc/mcp` (agent key). Default `true`. */
  mcp?: boolean;
  /** Serve the OpenAPI 3.1 document at `GET /svc/openapi.json`, without auth. Default `true`. */
  openapi?: boolean;
}

/** The app side, returned by {@linkcode createSvc}. */
export interface Svc {
  /** Serves `/svc/*` (also with the prefix stripped); answers 404 elsewhere. Safe to pass unbound. */
  handle: (req: Request) => Promise<Response>;
  /** Settles when storage is open and migrated; rejects if it cannot be. */
  ready: Promise<void>;
  /** The newest recorded violations (kept in `storage` in every mode). */
  violations: (options?: { limit?: number; keyId?: string }) => Promise<Violation[]>;
  /**
   * Posts an event to an agent's inbox (hybrid and cloud modes). A retried emit with the same
   * `eventId` is delivered once; one is generated (ULID) when absent. Throws `CLOUD_UNAVAILABLE`
   * when the cloud cannot be reached, so the caller can retry.
   */
  emit: (event: EventInput) => Promise<EmitResult>;
  /** Posts up to 500 events in one request, stored atomically. */
  emitMany: (events: EventInput[]) => Promise<EmitResult[]>;
  /** Sends what waits for the cloud now; resolves with how many items still wait (0 in local mode). */
  sync: () => Promise<number>;
  /** Writes what is pending and closes storage the toolkit opened. */
  close: () => Promise<void>;
}

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
 * // Deno.serve((req) => new URL(req.url).pathname.startsWith("/svc") ? svc.handle(req) : app(req));
 * ```
 */
export function createSvc(config: SvcConfig): Svc {
  const mode = config.mode ?? "local";
  if (!["local", "hybrid", "cloud"].includes(mode)) throw new Error(`Unknown mode "${mode}"`);
  if (mode !== "local" && !config.cloud) {
    throw new Error(`mode "${mode}" needs cloud: { endpoint, projectId, sdkSecret }`);
  }
  const log = config.logger ?? ((message: string, cause: unknown) => console.error(`[svc] ${message}`, cause));
  const bodyLimit = config.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const perKey = config.rateLimit?.perKey ? createRateLimiter(config.rateLimit.perKey) : undefined;
  const intents = compileIntents(config.intents ?? {}, config.scopes);
  const cloud: CloudClient | undefined = mode === "local" ? undefined : createCloudClient(config.cloud!);
  const mirror = mode !== "local";

  let storage: AppStorage | undefined;
  let keys: KeyService | undefined;
  let outbox: Outbox | undefined;
  let match: ReturnType<typeof createRouter<SvcRoute>> | undefined;
  const closing = new AbortController();
  const inFlight = new Set<Promise<unknown>>();

  function track(work: Promise<unknown>): void {
    inFlight.add(work);
    work.finally(() => inFlight.delete(work));
  }

  const violationQueue = createViolationQueue({
    write: async (batch) => {
      await storage!.insertViolations(batch, { mirror });
      outbox?.kick();
    },
    log,
  });

  function recordViolation(violation: Violation): void {
    violationQueue.add(violation);
    if (config.onViolation === undefined) return;
    track(
      Promise.resolve().then(() => config.onViolation!(violation)).catch((e) => log("onViolation failed", e)),
    );
  }

  const ready = (async () => {
    storage = await openAppStorage(config.storage ?? ":memory:", { authToken: config.storageAuthToken });
    const sharedInbox = config.sharedInbox ?? false;
    if (cloud) {
      const { retryMinMs, retryMaxMs } = config.cloud!;
      outbox = createOutbox({ storage, cloud, log, retryMinMs, retryMaxMs });
      uploadManifest(cloud);
    }
    keys = mode === "cloud"
      ? cloudKeys(cloud!, { sharedInbox, cacheTtlMs: config.cloud!.keyCacheTtlMs })
      : localKeys(storage, { sharedInbox, log, mirror, onQueued: () => outbox?.kick() });
    const runner = createIntentRunner({
      intents,
      strictIntents: config.strictIntents ?? false,
      validateResults: config.validateResults ?? false,
      onAgentIntent: config.onAgentIntent,
      recordViolation,
    });
    match = createRouter<SvcRoute>(
      svcRoutes({
        keys,
        scopes: config.scopes,
        runner,
        intents,
        acceptsOtherIntents: !config.strictIntents && config.onAgentIntent !== undefined,
        mcp: config.mcp !== false,
        openapi: config.openapi !== false,
        bodyLimit,
        log,
      }),
      "/svc",
    );
  })();
  ready.catch((e) => log("storage could not be opened", e));

  /** Uploads the manifest, retrying with backoff until it lands; a refused sdkSecret is reported once. */
  async function uploadManifest(cloud: CloudClient): Promise<void> {
    const entries = [...intents.values()].map((i) => i.manifest);
    const { retryMinMs = 500, retryMaxMs = 30_000 } = config.cloud!;
    for (let attempt = 0; !closing.signal.aborted; attempt++) {
      try {
        await cloud.putManifest(entries, config.scopes);
        return;
      } catch (error) {
        if (attempt === 0) {
          const refused = /sdkSecret/.test((error as Error).message);
          log(
            refused
              ? `THE CLOUD REFUSED THIS APP'S CREDENTIALS (project ${
                config.cloud!.projectId
              }): check cloud.sdkSecret ` +
                "and cloud.projectId (a rotated secret needs the new value and a redeploy). Agents keep working; " +
                "events and reports will fail until this is fixed."
              : "the intent manifest could not be uploaded; retrying in the background",
            error,
          );
        }
        await sleep(backoffDelay(attempt, retryMinMs, retryMaxMs), closing.signal);
      }
    }
  }

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
    return user;
  }

  async function authenticateAgent(req: Request): Promise<VerifiedKey> {
    const secret = bearerToken(req, AGENT_KEY_PREFIX);
    if (secret === null) {
      throw new SvcError(
        "UNAUTHORIZED",
        "An agent key is required: Authorization: Bearer svc_live_…",
        BEARER_CHALLENGE,
      );
    }
    const key = await keys!.verify(secret);
    if (key === null || key.revokedAt !== null) {
      if (key !== null) {
        recordViolation(newViolation("REVOKED_KEY", {
          keyId: key.id,
          userId: key.userId,
          message: "A revoked key was used",
          metadata: { method: req.method, path: pathnameOf(req.url).slice(0, 200) },
        }));
      }
      throw new SvcError("UNAUTHORIZED", "Invalid agent key", BEARER_CHALLENGE);
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

  async function handle(req: Request): Promise<Response> {
    try {
      if (match === undefined) await ready;
      const { route, params } = match!(req.method, pathnameOf(req.url));
      const ctx = { req, params } as SvcContext;
      if (route.auth === "user") ctx.user = await resolveUser(req);
      else if (route.auth === "agent") {
        ctx.key = await authenticateAgent(req);
        if (route.rateLimited && perKey) limitRate(ctx.key, perKey.take(ctx.key.id));
      }
      if (route.body) ctx.body = parseOrThrow(route.body, await readJson(req, bodyLimit));
      return await route.run(ctx);
    } catch (error) {
      return errorResponse(error, log);
    }
  }

  return {
    handle,
    ready,
    async violations(options = {}) {
      await ready;
      await Promise.allSettled([...inFlight, violationQueue.flush()]);
      return storage!.listViolations({ limit: Math.min(options.limit ?? 50, 200), keyId: options.keyId });
    },
    async emit(event) {
      return (await emitMany([event]))[0];
    },
    emitMany,
    async sync() {
      await ready;
      await violationQueue.flush();
      return outbox ? await outbox.sync() : 0;
    },
    async close() {
      closing.abort();
      await ready.catch(() => {});
      await violationQueue.flush();
      await outbox?.close();
      await keys?.close();
      await Promise.allSettled([...inFlight, violationQueue.flush()]);
      await storage?.close();
    },
  };
}

/** RFC 6750: a 401 for a Bearer credential names the scheme (MCP clients rely on it). */
const BEARER_CHALLENGE = { headers: { "www-authenticate": 'Bearer realm="svc"' } };

/** The pathname of a request URL, without building a URL object. */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const end = url.search(/[?#]/);
  return url.slice(start, end === -1 ? undefined : end);
}
