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
import { isSvcError } from "../errors/mod.ts";
import { type CloudAppIdentity, cloudCall, type CloudConfig } from "./cloud_call.ts";
import { emitBatchResultSchema, type EmitResult, emitResultSchema, type PostedEvent } from "../contract/mod.ts";
import { keyListSchema, keyVerificationSchema, mintedKeySchema, okSchema, revokedKeySchema } from "../contract/mod.ts";
import type { ApprovalStep, ManifestEntry } from "../contract/mod.ts";
import { type RevocationPage, revocationPageSchema } from "../contract/mod.ts";
import { toViolationReport, type Violation } from "../contract/mod.ts";
import { type AutoRevokePolicy, autoRevokePolicySchema } from "../contract/mod.ts";
import { type KeyLifetimePolicy, keyLifetimePolicySchema } from "../contract/mod.ts";
import { PLATFORM, type Runtime } from "../platform/mod.ts";
import { type ActivityPage, activityPageSchema, type ActivityRecord } from "../contract/mod.ts";

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

/** A reroll made at the app, as its outbox tells the cloud with the old key's record. */
export interface KeyReroll {
  /** When the user rerolled the key (ISO 8601). */
  at: string;
  /** The id of the key that replaces it. */
  successor: string;
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
  /** `POST /v1/sdk/approvals/batch`: up to 500 steps of approvals, each (approvalId, status) stored once. */
  postApprovalSteps(steps: readonly ApprovalStep[]): Promise<void>;
  /** `POST /v1/sdk/activity/batch`: up to 500 activity records at once, stored once each by id. */
  reportActivity(records: readonly ActivityRecord[]): Promise<void>;
  /** `GET /v1/sdk/activity?userId=&keyId=&cursor=&limit=`: a user's records, newest first. */
  listActivity(query: { userId: string; keyId?: string; cursor?: string; limit: number }): Promise<ActivityPage>;
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
 * @param runtime The clock of `refusedSince` and the HTTP client. Default the platform's.
 * @returns The client.
 */
export function createCloudClient(
  config: CloudConfig,
  identity?: CloudAppIdentity,
  runtime: Pick<Runtime, "now" | "fetch"> = PLATFORM,
): CloudClient {
  const { call, refusedSince } = cloudCall(config, identity, runtime);

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
    async postApprovalSteps(steps) {
      await call("POST", "/v1/sdk/approvals/batch", okSchema, { approvals: steps });
    },
    async reportActivity(records) {
      await call("POST", "/v1/sdk/activity/batch", okSchema, { activity: records });
    },
    listActivity({ userId, keyId, cursor, limit }) {
      const query = new URLSearchParams({
        userId,
        ...keyId === undefined ? {} : { keyId },
        ...cursor === undefined ? {} : { cursor },
        limit: String(limit),
      });
      return call("GET", `/v1/sdk/activity?${query}`, activityPageSchema);
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
    refusedSince,
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
