/**
 * The app server's client for the cloud's SDK routes (`/v1/sdk/*`, `/v1/events`),
 * authenticated with the project's sdkSecret. Network failures, 5xx, 408, 429
 * and a refused sdkSecret (401) become `CLOUD_UNAVAILABLE`, which is worth a
 * retry (a refused sdkSecret as `CLOUD_CREDENTIALS_REFUSED`, remembered until a call succeeds again, so
 * the app's agent routes can fail closed); every other 4xx is permanent: it keeps the cloud's code, or becomes
 * `INTERNAL` when the answer is not the contract's envelope (an HTML 413 from a
 * proxy).
 *
 * @module
 */
import { z } from "zod";
import type { KeyRecord, PublicKey } from "../contract/mod.ts";
import { ERROR_STATUS, type ErrorCode, isSvcError, SvcError } from "../errors/mod.ts";
import { emitBatchResultSchema, type EmitResult, emitResultSchema, type PostedEvent } from "../contract/mod.ts";
import {
  keyListSchema,
  keyVerificationSchema,
  mintedKeySchema,
  okSchema,
  revokedKeySchema,
} from "../contract/mod.ts";
import type { ManifestEntry } from "../contract/mod.ts";
import { type RevocationPage, revocationPageSchema } from "../contract/mod.ts";
import { toViolationReport, type Violation } from "../contract/mod.ts";
import { type AutoRevokePolicy, autoRevokePolicySchema } from "../contract/mod.ts";
import { type KeyLifetimePolicy, keyLifetimePolicySchema } from "../contract/mod.ts";

/** The part of `GET /v1/sdk/policy` the app reads (`keyLifetime` absent from a cloud older than it). */
export const appPolicySchema: z.ZodType<{
  autoRevoke: AutoRevokePolicy | null;
  keyLifetime?: KeyLifetimePolicy | null;
}> = z.object({
  autoRevoke: autoRevokePolicySchema.nullable(),
  keyLifetime: keyLifetimePolicySchema.nullable().optional(),
});

/** What an app follows of its project's policy. */
export interface AppPolicy {
  /** The auto-revoke policy (`null`: off). */
  autoRevoke: AutoRevokePolicy | null;
  /** The bounds of a key's lifetime (`null`: none). */
  keyLifetime: KeyLifetimePolicy | null;
}
/** The answer of `POST /v1/sdk/keys/used`. */
const keysUsedSchema = z.object({ ok: z.literal(true), updated: z.number().int().nonnegative() });

/** Where the cloud is and how this app authenticates to it. */
export interface CloudConfig {
  /** Base URL of the cloud, such as `https://svc.example.com`. */
  endpoint: string;
  /** `prj_…`. */
  projectId: string;
  /**
   * `svcs_…`: keep it in server-side secret storage. A function is called again before each call to
   * the cloud, so a rotated secret (read from a file, a secret store) is picked up without a restart.
   */
  sdkSecret: string | (() => string | Promise<string>);
  /**
   * How this app instance is named on the cloud's list of connected apps (`GET /v1/sdk/apps`), up to 100
   * characters. Default the host's name when the runtime tells it, else `app`.
   */
  label?: string;
  /** Per-request timeout in milliseconds. Default 5000. */
  timeoutMs?: number;
}

/** A reroll made at the app, as its outbox tells the cloud with the old key's record. */
export interface KeyReroll {
  /** When the user rerolled the key (ISO 8601). */
  at: string;
  /** The id of the key that replaces it. */
  successor: string;
}

/** Who follows the feed, sent on each poll: one instance per `createSvc`. */
export interface CloudAppIdentity {
  /** A ULID made per `createSvc`. */
  instanceId: string;
  /** The app's label (`cloud.label`). */
  label: string;
  /** `hybrid` or `cloud`. */
  mode: "hybrid" | "cloud";
  /** The SDK's version. */
  sdkVersion: string;
}

/** A key as the cloud's verify route describes it (`expiresAt`, `revokesAt`: absent from a cloud older than them). */
export type CloudKey = Pick<KeyRecord, "id" | "userId" | "name" | "scopes" | "agentId" | "expiresAt" | "revokesAt">;

/** The calls the SDK makes to the cloud. */
export interface CloudClient {
  /** `PUT /v1/sdk/intents`. */
  putManifest(intents: ManifestEntry[], scopes: readonly string[]): Promise<void>;
  /** `POST /v1/sdk/violations`. */
  reportViolation(violation: Violation): Promise<void>;
  /** `POST /v1/sdk/violations/batch`: up to 500 at once, stored together. */
  reportViolations(violations: readonly Violation[]): Promise<void>;
  /**
   * `PUT /v1/sdk/keys/:id`: the hybrid mirror of a key record (`revokeReason` `oauth`: its grant ended; `grantId`:
   * the OAuth grant it is the access token of), with the reroll that scheduled its revocation, for the cloud's audit
   * log.
   */
  mirrorKey(record: KeyRecord & { revokeReason?: "oauth" }, reroll?: KeyReroll): Promise<void>;
  /** `POST /v1/sdk/keys` (`expiresAt` absent: the project's default lifetime applies). */
  mintKey(
    userId: string,
    request: { name: string; scopes: string[]; agentId?: string; expiresAt?: string; grantId?: string },
  ): Promise<
    z.output<typeof mintedKeySchema>
  >;
  /** `POST /v1/sdk/keys/:id/reroll`: the user's key's successor, or `null` when the user has no such key in force. */
  rerollKey(
    userId: string,
    id: string,
    graceMinutes: number,
    expiresAt?: string,
  ): Promise<z.output<typeof mintedKeySchema> | null>;
  /** `GET /v1/sdk/keys?userId=`. */
  listKeys(userId: string): Promise<PublicKey[]>;
  /**
   * `DELETE /v1/sdk/keys/:id`; `reason` (default `tooling`) says who asked: `app` (a user), `oauth` (the OAuth
   * server); with `userId`, only that user's key (else `NOT_FOUND`).
   */
  revokeKey(id: string, reason?: "app" | "oauth", userId?: string): Promise<{ id: string; revokedAt: string }>;
  /** `POST /v1/sdk/keys/verify`: the key, or `null` when the cloud does not accept it. */
  verifyKey(secret: string): Promise<CloudKey | null>;
  /** `POST /v1/events` for one event, `POST /v1/events/batch` for several (up to 500). */
  postEvents(events: PostedEvent[]): Promise<EmitResult[]>;
  /** `GET /v1/sdk/policy`: the project's auto-revoke policy (`null` when off). */
  policy(): Promise<AutoRevokePolicy | null>;
  /** `GET /v1/sdk/policy`: what the app follows of it (auto-revoke and key lifetimes). */
  appPolicy(): Promise<AppPolicy>;
  /** `POST /v1/sdk/keys/used`: when keys were last used at this app (1..500). */
  keysUsed(keys: readonly { id: string; lastUsedAt: string }[]): Promise<number>;
  /**
   * Since when (ms since the epoch) the cloud has refused this app's credentials, or `null` while they
   * work: set by a `401`, cleared by the next call that succeeds.
   */
  refusedSince(): number | null;
  /**
   * `GET /v1/sdk/keys/revocations`: the feed after `after`, held open up to `waitSeconds` when empty; given up
   * `graceMs` after the hold (default, and at most, `timeoutMs`) when no answer came.
   */
  revocations(
    after: number,
    options: { limit: number; waitSeconds: number; graceMs?: number; signal?: AbortSignal },
  ): Promise<RevocationPage>;
}

/**
 * Creates the client.
 *
 * @param config Endpoint, project and secret.
 * @param identity This app instance, sent on feed polls.
 * @param now The clock of `refusedSince`. Default `Date.now`.
 * @returns The client.
 */
export function createCloudClient(
  config: CloudConfig,
  identity?: CloudAppIdentity,
  now: () => number = Date.now,
): CloudClient {
  const base = config.endpoint.replace(/\/+$/, "");
  const timeoutMs = config.timeoutMs ?? 5000;
  let refusedAt: number | null = null;
  /** The secret last read: a 401 to a call made with an older one (in flight across a change) is not news. */
  let latest = "";
  const feedHeaders: Record<string, string> = identity === undefined ? {} : {
    "x-svc-instance": identity.instanceId,
    "x-svc-app-label": identity.label.slice(0, 100),
    "x-svc-mode": identity.mode,
    "x-svc-sdk-version": identity.sdkVersion,
  };

  /** The headers of a call, with the secret as it is now (a function is asked each time). */
  async function headersOf(feed: boolean): Promise<Record<string, string>> {
    const secret = typeof config.sdkSecret === "function" ? await config.sdkSecret() : config.sdkSecret;
    latest = secret;
    return {
      authorization: `Bearer ${secret}`,
      "x-svc-project": config.projectId,
      "content-type": "application/json",
      ...(feed ? feedHeaders : {}),
    };
  }

  /**
   * Calls a route and checks its answer against the route's documented schema. A long poll
   * gives its wait (added to the timeout) and a signal that ends it.
   */
  async function call<T>(
    method: string,
    path: string,
    answer: z.ZodType<T>,
    body?: unknown,
    poll?: { waitMs: number; graceMs?: number; signal?: AbortSignal },
  ): Promise<T> {
    let res: Response;
    let headers: Record<string, string>;
    try {
      headers = await headersOf(path.startsWith("/v1/sdk/keys/revocations"));
    } catch (cause) {
      throw unavailable("The app's cloud.sdkSecret function failed", cause);
    }
    const timeout = AbortSignal.timeout(Math.min(timeoutMs, poll?.graceMs ?? timeoutMs) + (poll?.waitMs ?? 0));
    try {
      res = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: poll?.signal ? AbortSignal.any([timeout, poll.signal]) : timeout,
      });
    } catch (cause) {
      throw unavailable("The cloud cannot be reached", cause);
    }
    const data = await res.json().catch(() => null);
    if (res.ok) refusedAt = null; // only an answer to an authenticated call says the credentials work (not a 404)
    if (res.ok) {
      const parsed = answer.safeParse(data);
      if (parsed.success) return parsed.data;
      throw unavailable(`The cloud's answer to ${method} ${path.split("?")[0]} is not the documented shape`, data);
    }
    if (res.status >= 500 || res.status === 408) {
      throw unavailable(`The cloud answered ${res.status}`, data?.error ?? res.status);
    }
    if (res.status === 401) {
      // The app's credentials, not the request, are wrong: every call fails alike until the secret is fixed.
      if (headers.authorization === `Bearer ${latest}`) refusedAt ??= now();
      throw new SvcError("CLOUD_CREDENTIALS_REFUSED", "The cloud refused this app's sdkSecret or projectId", {
        cause: data?.error ?? res.status,
        headers: { "retry-after": "5" },
      });
    }
    if (res.status === 429) {
      // Over the project's rate: the request was fine, so it is retried later, never dropped.
      throw new SvcError("CLOUD_UNAVAILABLE", "The cloud is rate limiting this project", {
        cause: data?.error ?? res.status,
        headers: { "retry-after": res.headers.get("retry-after") ?? "5" },
      });
    }
    const code = data?.error?.code as ErrorCode | undefined;
    if (code === undefined || !(code in ERROR_STATUS) || ERROR_STATUS[code] >= 500) {
      // A 4xx without the envelope (a proxy's HTML 413): the same request will be refused again.
      throw new SvcError("INTERNAL", `The cloud answered ${res.status} to ${method} ${path.split("?")[0]}`, {
        cause: data?.error ?? res.status,
      });
    }
    throw new SvcError(code, String(data.error.message), { details: data.error.details });
  }

  return {
    async putManifest(intents, scopes) {
      await call("PUT", "/v1/sdk/intents", okSchema, { intents, scopes });
    },
    async reportViolation(v) {
      await call("POST", "/v1/sdk/violations", okSchema, { violation: toViolationReport(v) });
    },
    async reportViolations(violations) {
      await call("POST", "/v1/sdk/violations/batch", okSchema, { violations: violations.map(toViolationReport) });
    },
    async mirrorKey(r, reroll) {
      const { userId, name, scopes, agentId, hash, start, createdAt, revokedAt } = r;
      await call("PUT", `/v1/sdk/keys/${encodeURIComponent(r.id)}`, okSchema, {
        userId,
        name,
        scopes,
        agentId,
        hash,
        start,
        createdAt,
        revokedAt,
        expiresAt: r.expiresAt ?? null,
        revokesAt: r.revokesAt ?? null,
        ...r.revokedAt !== null && r.revokeReason ? { revokeReason: r.revokeReason } : {},
        ...r.grantId ? { grantId: r.grantId } : {},
        ...reroll ? { reroll } : {},
      });
    },
    mintKey(userId, request) {
      return call("POST", "/v1/sdk/keys", mintedKeySchema, { userId, ...request });
    },
    async rerollKey(userId, id, graceMinutes, expiresAt) {
      try {
        return await call("POST", `/v1/sdk/keys/${encodeURIComponent(id)}/reroll`, mintedKeySchema, {
          userId,
          graceMinutes,
          expiresAt,
        });
      } catch (error) {
        if (isSvcError(error) && error.code === "NOT_FOUND") return null;
        throw error;
      }
    },
    async listKeys(userId) {
      return (await call("GET", `/v1/sdk/keys?userId=${encodeURIComponent(userId)}`, keyListSchema)).keys;
    },
    async revokeKey(id, reason, userId) {
      const query = new URLSearchParams({ ...reason ? { reason } : {}, ...userId ? { userId } : {} }).toString();
      const by = query === "" ? "" : `?${query}`;
      const { revokedAt } = await call("DELETE", `/v1/sdk/keys/${encodeURIComponent(id)}${by}`, revokedKeySchema);
      return { id, revokedAt };
    },
    async verifyKey(secret) {
      const data = await call("POST", "/v1/sdk/keys/verify", keyVerificationSchema, { key: secret });
      return data.valid ? data.key : null;
    },
    async postEvents(events) {
      if (events.length === 1) return [await call("POST", "/v1/events", emitResultSchema, events[0])];
      return (await call("POST", "/v1/events/batch", emitBatchResultSchema, { events })).results;
    },
    async policy() {
      return (await call("GET", "/v1/sdk/policy", appPolicySchema)).autoRevoke;
    },
    async appPolicy() {
      const { autoRevoke, keyLifetime } = await call("GET", "/v1/sdk/policy", appPolicySchema);
      return { autoRevoke, keyLifetime: keyLifetime ?? null };
    },
    async keysUsed(keys) {
      return (await call("POST", "/v1/sdk/keys/used", keysUsedSchema, { keys })).updated;
    },
    refusedSince: () => refusedAt,
    revocations(after, { limit, waitSeconds, graceMs, signal }) {
      const query = `after=${after}&limit=${limit}&wait=${waitSeconds}`;
      return call("GET", `/v1/sdk/keys/revocations?${query}`, revocationPageSchema, undefined, {
        waitMs: waitSeconds * 1000,
        graceMs,
        signal,
      });
    },
  };
}

function unavailable(message: string, cause: unknown): SvcError {
  return new SvcError("CLOUD_UNAVAILABLE", message, { cause, headers: { "retry-after": "5" } });
}

/**
 * Tells whether a cloud call failed for a reason that may pass (the network,
 * a 5xx, 408 or 429 answer, refused credentials) rather than because the
 * request itself was wrong (any other 4xx, with or without the envelope).
 *
 * @param error What the call threw.
 * @returns `true` when retrying later makes sense.
 */
export function isTransient(error: unknown): boolean {
  return isSvcError(error) ? error.code === "CLOUD_UNAVAILABLE" || error.code === "CLOUD_CREDENTIALS_REFUSED" : true;
}
