/**
 * What `/svc` routes are given: the callers of its auth kinds (the app's
 * signed-in user, an agent key) and the app's services, and the `defineRoute`
 * that types a route from them.
 *
 * @module
 */
import { type DefineRoute, routeDefiner } from "../../http/mod.ts";
import type { ErrorLogger } from "../../logging/mod.ts";
import type { CompiledIntent } from "../../intents/mod.ts";
import type { IntentRunner } from "../../intents/mod.ts";
import type { KeyLifetime, KeyService, VerifiedKey } from "../../keys/mod.ts";
import type { AppHealth, ApprovalStep, Violation, ViolationKind } from "../../contract/mod.ts";
import type { Approvals, DecisionTokens } from "../../approvals/mod.ts";
import type { ActivityLog } from "../../activity/mod.ts";

/** The prefix of every app route. */
export const SVC_PREFIX = "/svc";

/** What every `/svc` route may use. */
export interface AppDeps {
  /** Where keys live. */
  keys: KeyService;
  /** Lists and runs intents. */
  runner: IntentRunner;
  /** The scopes the app supports. */
  scopes: readonly string[];
  /**
   * The bounds of a key's lifetime at minting: the app's `keys` config (with the project's policy, hybrid; a hybrid
   * app that knows no policy yet throws `CLOUD_UNAVAILABLE`).
   */
  keyLifetime: () => Promise<KeyLifetime>;
  /** The compiled registry, for the OpenAPI document. */
  intents: ReadonlyMap<string, CompiledIntent>;
  /** Whether `onAgentIntent` may take intents outside the registry. */
  acceptsOtherIntents: boolean;
  /** The largest request body, in bytes (for the MCP transport). */
  bodyLimit: number;
  /** Where failures are logged. */
  log: ErrorLogger;
  /** Records what an agent key was refused (never waits). */
  recordViolation: (violation: Violation) => void;
  /** Counts a refusal as a repeat of its key's open window; `false` when it must be recorded in full. */
  repeatViolation: (keyId: string, kind: ViolationKind, intent: string | null) => boolean;
  /** The clock (milliseconds since the epoch) against which a key's expiry is checked. */
  now: () => number;
  /**
   * Milliseconds until the request's address may present a refused credential again (0: it may now), so a costly
   * check (cloud mode's verify call) is skipped for an address past its budget; always 0 when that limit is off.
   */
  addressWaitMs: (req: Request) => number;
  /** What the mode's link to the cloud checks and notes on every agent request (nothing in local mode). */
  link: AppLink;
  /** Runs that wait for their user's decision. */
  approvals: Approvals;
  /** The decision page's CSRF tokens. */
  decisionTokens: DecisionTokens;
  /** What agents did: records each agent run, lists a user's records. */
  activity: ActivityLog;
  /**
   * The `WWW-Authenticate` challenge of a scope step-up when the key is an OAuth access token, else `null`; itself
   * `null` without the `oauth` option (no key steps up: a scope refusal is answered without waiting). See
   * {@linkcode stepUpRefusal}.
   */
  scopeChallenge: ((req: Request, key: VerifiedKey, needed: readonly string[]) => Promise<string | null>) | null;
  /**
   * Tells the cloud a step of an approval (hybrid and cloud modes: queued in the outbox, sent in batches, each
   * (approvalId, status) stored and audited once at the cloud; local mode: nothing). Resolves once queued.
   */
  approvalStep: (step: ApprovalStep) => Promise<void>;
}

/** What the app's link to the cloud checks and notes on the `/svc` routes; local mode's checks pass and note nothing. */
export interface AppLink {
  /**
   * Throws the `503` an agent route answers while the app cannot hear revocations (hybrid and cloud modes):
   * `CLOUD_CREDENTIALS_REFUSED` or `REVOCATION_FEED_STALE`.
   */
  revocationsHeard(): void;
  /**
   * Throws `503 CLOUD_CREDENTIALS_REFUSED` while the cloud refuses the app's credentials (hybrid and cloud modes):
   * no key is minted then.
   */
  credentialsAccepted(): void;
  /** What `GET /svc/health` answers. */
  health(): AppHealth;
  /** Whether a key reached the project's auto-revoke threshold here (refused before its revoke is written). */
  autoRevoked(keyId: string): boolean;
  /** Notes an agent key's use, for the cloud's `lastUsedAt` (hybrid mode). */
  used(keyId: string): void;
}

/** The app side: the signed-in user (the app's `userResolver`), an agent key, or none. */
export interface AppSide {
  /** The caller each auth kind yields. */
  callers: { user: string; agent: VerifiedKey; none: null };
  /** Its rate limit: `perKey` counts an agent key. */
  limits: { perKey: VerifiedKey };
  /** The services. */
  deps: AppDeps;
}

/** Declares a `/svc` route. */
export const defineRoute: DefineRoute<AppSide> = routeDefiner<AppSide>();
