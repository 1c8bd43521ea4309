/**
 * The configuration of `createSvc` and the object it returns.
 *
 * @module
 */
import type { CloudConfig } from "../cloud_link/mod.ts";
import type { EmitResult, EventInput } from "../contract/mod.ts";
import type { DatabaseInput } from "../db/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { IntentRegistry } from "../intents/mod.ts";
import type { FallbackHandler } from "../intents/mod.ts";
import type { RateLimits } from "../abuse/mod.ts";
import type { Violation } from "../contract/mod.ts";
import type { AutoRevokePolicy, CloudLinkState } from "../contract/mod.ts";
import type { RevocationFeedHealth } from "../cloud_link/mod.ts";
import type { OAuthConfig } from "../oauth/mod.ts";
import type { ScopeList } from "./scope_list.ts";
import type { Approval } from "../approvals/mod.ts";

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
  /** Longest retry delay of the outbox and the manifest upload, in milliseconds (the feed's is about 1 s). Default 30000. */
  retryMaxMs?: number;
  /** How long cloud mode trusts a key verification, in milliseconds. Default 2000. */
  keyCacheTtlMs?: number;
  /**
   * How long a violation report the outbox set aside (after 10 failed tries) is kept, in milliseconds
   * from when it was made; then it is deleted, and logged. Default 7 days.
   */
  setAsideRetentionMs?: number;
  /**
   * The most violation reports the outbox keeps, waiting or set aside; past it the oldest are dropped
   * (set-aside ones first) and the count logged. Checked at start and every `purgeIntervalMs`, so between
   * two checks the outbox may hold more. Key records are never dropped. Default 10000.
   */
  outboxLimit?: number;
  /**
   * How long a hybrid app serves agent keys without hearing the revocation feed, in milliseconds: counted from the
   * START of the last feed poll that completed (a poll in flight, stalled or slow, never counts). Past it the agent
   * routes answer `503 REVOCATION_FEED_STALE` until a poll completes; the feed's long polls are held a quarter of it
   * at most. `false`: no bound. Default 600000 (10 minutes).
   */
  maxRevocationLagMs?: number | false;
  /**
   * `true`: `ready` rejects (naming the endpoint and the fix) instead of serving when the first poll of the cloud
   * fails: the cloud cannot be reached, or it refuses the app's credentials. Default `false`: the app starts, serves
   * within `maxRevocationLagMs`, and logs an error every 30 s until it reaches the cloud.
   */
  requireAtStart?: boolean;
}

/** The names of the app's rate limits. */
export type SvcRateLimitName = "perKey" | "refusalsPerAddress";

/** The options of every mode. */
export interface SvcOptions {
  /** The signed-in user of a request, from the app's own session; `null` when signed out. */
  userResolver: (req: Request) => string | null | undefined | Promise<string | null | undefined>;
  /**
   * The scopes the app supports: names (`["notes:read", "notes:write"]`), or with what each allows, shown on the
   * OAuth consent page (`{ "notes:write": "Create and change your notes" }`, or `[{ name, description }]`).
   */
  scopes: ScopeList;
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
  /** How long the app keeps its own violations, in milliseconds. Default 30 days (as the cloud). */
  violationRetentionMs?: number;
  /**
   * What agents did: one record per agent run (`GET /svc/activity`). Local and hybrid apps keep their records
   * `retentionDays` (default 30); hybrid and cloud apps send them to the cloud. `false`: nothing is recorded.
   */
  activity?: false | { retentionDays?: number };
  /**
   * How often old violations (and the outbox's expired reports) are purged, in milliseconds; also once
   * at start, in the background. Default: the retention, at most an hour.
   */
  purgeIntervalMs?: number;
  /**
   * Where keys (local, hybrid), violations and the outbox to the cloud live: a libSQL URL (`file:./data/app.db`,
   * `:memory:`, `libsql://…`, `http(s)://…`) or Client. Default `:memory:` (lost on restart), which hybrid mode
   * refuses: it would forget keys the cloud still accepts.
   */
  storage?: DatabaseInput;
  /** Auth token for a remote `storage` URL. */
  storageAuthToken?: string;
  /** Allow agentId `default`: one inbox shared by every agent of the app. Default `false`. */
  sharedInbox?: boolean;
  /**
   * The lifetime of the keys users mint, in days: `defaultLifetimeDays` for a key minted without `expiresAt` or
   * `expiresInDays`, `maxLifetimeDays` the longest one may ask (past it, `400 VALIDATION_ERROR` naming the
   * maximum; with no default, a key gets the maximum). Absent: keys never expire unless asked to. The project's
   * policy `keyLifetime` bounds them too (hybrid and cloud modes): the shorter maximum wins.
   */
  keys?: KeyLifetimeConfig;
  /** Largest request body in bytes. Default 1 MiB. */
  bodyLimit?: number;
  /**
   * Rate limits, on by default (`DEFAULT_SVC_RATE_LIMITS`). `perKey` (600 per minute) limits
   * `/svc/agent/run` and `/svc/mcp` per agent key: over it the answer is `429 RATE_LIMITED` with
   * `Retry-After`, and one `RATE_LIMITED` violation is recorded per run of refusals.
   * `refusalsPerAddress` (100 per minute) limits refused agent keys (`401`) per client address
   * (`clientAddress(req)`; IPv6 per /64): past it, the address's refused keys get `429` with
   * `Retry-After` instead of `401`, while its valid keys are served. `false` turns one (or both) off.
   */
  rateLimit?: RateLimits<SvcRateLimitName>;
  /**
   * Where causes of 5xx answers and background failures are logged. Default `console.error`, one line of text each.
   * `"json"` (or core/logging's `jsonLogger`): one JSON object a line on standard output, with `time`, `level`,
   * `message`, and a line per answered request with its `route`, `status`, `ms`, `project` and `keyId`.
   */
  logger?: ErrorLogger | "json";
  /**
   * Serve the Model Context Protocol at `POST /svc/mcp` (agent key). Default `true`; `false` removes the route; an
   * object keeps it with {@linkcode McpOptions}.
   */
  mcp?: boolean | McpOptions;
  /** Serve the OpenAPI 3.1 document at `GET /svc/openapi.json`, without auth. Default `true`. */
  openapi?: boolean;
  /** Runs that wait for their user's decision (intents with `approval`). */
  approvals?: ApprovalsConfig;
  /**
   * Called when a run waits for its user's decision, to notify them (email, push) with `decideUrl`; not awaited by
   * the agent's answer, a failure is logged.
   */
  onApprovalRequested?: (approval: Approval & { decideUrl: string }) => void | Promise<void>;
}

/** The `approvals` option of {@linkcode SvcOptions}. */
export interface ApprovalsConfig {
  /**
   * The app's own decision page, instead of the SDK's at `/svc/approvals/:id`: `{id}` in it is replaced by the
   * approval's id (`https://app.example.com/approvals/{id}`), else `?approvalId=` is appended. The page decides
   * with `POST /svc/approvals/:id/approve` and `…/deny`.
   */
  pageUrl?: string;
  /** The most approvals one key may have pending at once (default 20); beyond, `429 APPROVAL_PENDING_LIMIT`. */
  maxPendingPerKey?: number;
}

/** The `mcp` option of {@linkcode SvcOptions} as an object: how `/svc/mcp` lists tools and whom it serves. */
export interface McpOptions {
  /**
   * What `tools/list` shows: `"granted"` (default) the intents the key holds every scope of; `"all"` every intent,
   * each with its required scopes in `_meta["svc/requiredScopes"]` and its description, so a client (or a model)
   * can call one beyond its grant and meet the step-up (`403` for an OAuth token, a `FORBIDDEN_SCOPE` tool error
   * for a pasted key).
   */
  listTools?: "granted" | "all";
  /**
   * Origins (`https://chat.example.com`) whose browser pages may call `/svc/mcp` and the OAuth routes, beside the
   * app's own `oauth.publicUrl`. A request with an `Origin` header outside them gets `403`; with neither this nor
   * `publicUrl`, only loopback origins (`http://localhost:…`, `http://127.0.0.1:…`) are served (the MCP spec's
   * DNS-rebinding defence). When either is set, the request's `Host` must also be one of these origins' hosts.
   */
  allowedOrigins?: string[];
}

/** The `keys` option of {@linkcode SvcOptions}. */
export interface KeyLifetimeConfig {
  /** Days a key lives when its mint gives no lifetime (at most `maxLifetimeDays`). */
  defaultLifetimeDays?: number;
  /** The most days a key may live. */
  maxLifetimeDays?: number;
}

/** Local mode (the default): keys and violations in `storage`, no cloud. */
export interface LocalSvcConfig extends SvcOptions {
  /** `local`, or absent. */
  mode?: "local";
  /** No cloud in local mode: set `mode: "hybrid"` or `"cloud"` to use one. */
  cloud?: undefined;
  /**
   * Revoke a key automatically when it collects `threshold` counted violations within `windowMinutes`
   * (by default `FORBIDDEN_SCOPE` and every `severe` one count), recording an `AUTO_REVOKED` violation.
   * Off by default.
   */
  autoRevoke?: AutoRevokePolicy;
  /**
   * Be the OAuth 2.1 authorization server of `/svc`, so MCP clients connect by consent: discovery metadata,
   * `/svc/oauth/*`, and access tokens that are agent keys of the consenting user. Every mode.
   */
  oauth?: OAuthConfig;
}

/** Hybrid mode: keys in `storage` (a file or remote database), mirrored to the cloud; events and reports through it. */
export interface HybridSvcConfig extends SvcOptions {
  /** `hybrid`. */
  mode: "hybrid";
  /** Where the cloud is and this app's project and secret. */
  cloud: SvcCloudConfig;
  /** As in local mode: the app applies it to the keys it keeps. */
  autoRevoke?: AutoRevokePolicy;
  /** As in local mode. */
  oauth?: OAuthConfig;
}

/** Cloud mode: keys in the cloud (minted, listed, revoked and verified through it). */
export interface CloudSvcConfig extends SvcOptions {
  /** `cloud`. */
  mode: "cloud";
  /** Where the cloud is and this app's project and secret. */
  cloud: SvcCloudConfig;
  /** Not here: the cloud keeps the keys, so set the project's policy (`PUT /v1/sdk/policy`). */
  autoRevoke?: undefined;
  /** As in local mode: the access tokens are keys the cloud keeps, with their expiry; the grants stay in `storage`. */
  oauth?: OAuthConfig;
}

/**
 * The configuration of `createSvc`, by `mode`: `local` (the default), `hybrid` or `cloud`. It is checked
 * when `createSvc` is called, which throws a message naming each wrong option and how to write it.
 */
export type SvcConfig = LocalSvcConfig | HybridSvcConfig | CloudSvcConfig;

/** What `svc.health()` reports, for an operator's alerts. */
export interface SvcHealth {
  /** `false` while the agent routes refuse (`REVOCATION_FEED_STALE`, `CLOUD_CREDENTIALS_REFUSED`): `GET /svc/health`'s. */
  ok: boolean;
  /** The mode. */
  mode: SvcMode;
  /**
   * The link to the cloud, as `GET /svc/health` names it (`null` in local mode): `following`, `connecting`,
   * `never_connected`, `stale` or `refused`.
   */
  cloud: CloudLinkState | null;
  /** How the cloud's revocation feed is followed (hybrid and cloud modes), or `null` in local mode. */
  revocationFeed: RevocationFeedHealth | null;
  /** Items waiting to reach the cloud (key mirrors, violations); 0 in local mode. Set-aside items are not counted. */
  outbox: number;
  /**
   * Items the cloud refused for good (a 4xx no retry changes), kept but never sent again, counted by reason
   * (the cloud's code and message); `count` 0 in local mode. A transient failure never sets an item aside.
   */
  outboxSetAside: { count: number; reasons: { reason: string; count: number }[] };
  /**
   * Whether the cloud accepts the app's sdkSecret: `refused` after it answered `401` (rotated, project deleted;
   * the agent routes answer `503 CLOUD_CREDENTIALS_REFUSED` until a call succeeds again), else `ok`; `null` in
   * local mode.
   */
  credentials: "ok" | "refused" | null;
  /** The project's auto-revoke policy this app applies (hybrid and cloud modes), `null` when off or not read yet. */
  autoRevoke: AutoRevokePolicy | null;
}

/** The app side, returned by `createSvc`. */
export interface Svc {
  /** Serves `/svc/*`; answers 404 elsewhere. Safe to pass unbound. */
  handle: (req: Request) => Promise<Response>;
  /** Settles when storage is open and migrated; rejects if it cannot be. */
  ready: Promise<void>;
  /** The newest recorded violations (kept in `storage` in every mode). */
  violations: (options?: { limit?: number; keyId?: string }) => Promise<Violation[]>;
  /**
   * Posts an event to an agent's inbox (hybrid and cloud modes). Without an `eventId`, one (a ULID) is minted
   * before the first try, and a transient failure (the network, a timeout, 408, 429, 5xx) is retried with that
   * same id, up to 3 tries in all: the cloud stores an `eventId` once, so the event is
   * delivered once even when an answer was lost. Throws `CLOUD_UNAVAILABLE` when the cloud still cannot be
   * reached, with the ids in `details.eventIds`, so the caller can retry with it.
   */
  emit: (event: EventInput) => Promise<EmitResult>;
  /** Posts up to 500 events in one request, stored atomically. */
  emitMany: (events: EventInput[]) => Promise<EmitResult[]>;
  /**
   * The toolkit's health: whether the agent routes serve and the cloud link's state (what `GET /svc/health`
   * answers); in hybrid and cloud modes, whether the revocation feed is followed and how far behind it may be
   * (`revocationFeed.lagMs`: since the start of the last completed poll), and the outbox's backlog.
   */
  health: () => Promise<SvcHealth>;
  /**
   * Sends what waits for the cloud now; resolves with how many items still wait (0 in local mode). Items the
   * cloud refused for good are not waiting: when there are any, it logs their count and reasons (as
   * `health().outboxSetAside` tells them).
   */
  sync: () => Promise<number>;
  /**
   * The app's metrics in the Prometheus text exposition (content type `text/plain; version=0.0.4`), for the app to
   * serve where its scraper reads (behind its own auth): requests by route and status with their durations, the
   * outbox's items, the revocation feed's lag and the cloud link's state.
   */
  metrics: () => Promise<string>;
  /** Writes what is pending and closes storage the toolkit opened. */
  close: () => Promise<void>;
}
