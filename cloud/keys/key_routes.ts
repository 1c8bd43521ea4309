/**
 * `/v1/sdk/keys…`: minting, listing, revoking and verifying agent keys for
 * cloud mode and tooling, and mirroring the key records of hybrid apps.
 *
 * @module
 */
import { z } from "zod";
import { errorEnvelopeSchema } from "../../core/contract/mod.ts";
import { SvcError } from "../../core/errors/mod.ts";
import {
  agentIdTaken,
  agentIdText,
  checkAgentId,
  isExpired,
  isRevocationDue,
  keyAt,
  type KeyLifetimePolicy,
  type KeyRecord,
  mintAgentKey,
  mintKeyFields,
  ONE_LIFETIME,
  oneLifetime,
  publicKey,
} from "../../core/contract/mod.ts";
import { heldExpiry, keyExpiry, successorExpiry } from "../../core/keys/mod.ts";
import {
  keyListSchema,
  keyVerificationSchema,
  mintedKeySchema,
  okSchema,
  revokedKeySchema,
} from "../../core/contract/mod.ts";
import { storedText } from "../../core/contract/mod.ts";
import { AGENT_KEY_PREFIX, hashSecret, KEY_START_LENGTH } from "../../core/contract/mod.ts";
import { newViolation, type Violation } from "../../core/contract/mod.ts";
import { timestampInput } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { cloudRouteDefiner, type CloudRouteDeps, recordUse, type SdkCaller } from "../routes/mod.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import type { KeyService } from "./key_service.ts";
import { type AuditActor, sdkActor } from "../audit/mod.ts";

/** What the key routes are given. */
export interface KeyRouteDeps extends CloudRouteDeps {
  /** Keys and their revocation. */
  keys: KeyService;
  /** Repeated refusals of revoked keys, written once per key and window (the violations feature's record). */
  refusals: {
    /** Records a refusal. */
    record(projectId: string, violation: Violation): Promise<void>;
  };
  /**
   * Takes a token of the project's write budget (`projectWrites`) for a route that draws from it only for some
   * requests (the mirror of a key, except when it revokes); throws `429 RATE_LIMITED` when none is left.
   */
  takeProjectWrite(caller: SdkCaller): void;
  /** Where a failure that does not stop the request goes (a key's last use that could not be written). */
  log: ErrorLogger;
  /** The project's policy, for its bounds of a key's lifetime (the violations feature's service). */
  violations: {
    /** The project's policy. */
    policy(projectId: string): Promise<{ keyLifetime?: KeyLifetimePolicy | null }>;
  };
}

/** An app acting for its user (a hybrid app's mirror, a cloud-mode app's revoke or reroll), and from where. */
function appActor(req: Request): AuditActor {
  return { ...sdkActor(req), actor: "app" };
}

/** The answer of a mint: the listed key's fields and the plaintext, shown once. */
function mintAnswer(record: KeyRecord, key: string): Response {
  const { id, name, scopes, agentId, createdAt } = record;
  return json({ id, name, scopes, agentId, key, createdAt }, 201);
}

const defineRoute = cloudRouteDefiner<KeyRouteDeps>();

const userId = storedText(1, 200);

/** The body of `POST /v1/sdk/keys`: `POST /svc/keys` plus the owner. */
export const cloudMintKeyBody = mintKeyFields.extend({
  userId,
  grantId: storedText(1, 100).optional()
    .describe("The app's OAuth grant the key is the access token of; 404 once a revoke of one of its keys ended it"),
}).refine(oneLifetime, ONE_LIFETIME);

/** The body of `PUT /v1/sdk/keys/:id`: a key record mirrored by a hybrid app, hash only. */
export const mirrorKeyBody = mintKeyFields.pick({ name: true, scopes: true }).extend({
  userId,
  agentId: agentIdText,
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Must be a SHA-256 hex digest"),
  start: z.string().regex(/^svc_live_/, "Must start with svc_live_").max(KEY_START_LENGTH),
  createdAt: timestampInput,
  revokedAt: timestampInput.nullable(),
  expiresAt: timestampInput.nullable().optional().describe("When the key stops working (null or absent: never)"),
  revokesAt: timestampInput.nullable().optional()
    .describe("When its scheduled revocation (a reroll's grace end) takes effect; an earlier one already kept wins"),
  revokeReason: z.enum(["app", "oauth"]).optional()
    .describe("Why a revoked record was revoked: app (its user, the default) or oauth (its grant ended)"),
  grantId: storedText(1, 100).optional()
    .describe(
      "The app's OAuth grant the key is the access token of: a revoke of any key of the grant at the cloud ends " +
        "it (through the feed), and a key mirrored for a grant ended here is stored revoked",
    ),
  reroll: z.object({
    at: timestampInput.describe("When the user rerolled the key, at the app"),
    successor: z.uuid().describe("The id of the key that replaces it"),
  }).optional().describe("Sent with the record of a key the app rerolled: the cloud audits it as key.reroll, once"),
});

/** The answer of `DELETE /v1/sdk/keys?userId=`: how many of the user's keys this call revoked. */
export const revokedUserKeysSchema: z.ZodType<{ ok: true; revoked: number }> = z.object({
  ok: z.literal(true),
  revoked: z.number().int().nonnegative().describe("Keys of the user this call revoked (0 when none was active)"),
});

/** The longest grace of a reroll, in minutes (7 days). */
const MAX_GRACE_MINUTES = 10_080;

/** Any id that is not this project's key, UUID or not, is simply not found. */
const anyKeyId = z.object({ id: z.string().min(1).max(200) });

/** The key routes. */
export const keyRoutes = [
  defineRoute({
    name: "mintKey",
    method: "POST",
    path: "/v1/sdk/keys",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Mint an agent key for a user; the key is shown once",
    body: cloudMintKeyBody,
    responses: { 201: mintedKeySchema, 404: errorEnvelopeSchema },
    async run({ req, caller, body }, { keys, violations }) {
      // The app checks `default` against its own config before calling; the cloud accepts it.
      const { agentId, kind } = checkAgentId(body.userId, body.agentId, true);
      const { keyLifetime } = await violations.policy(caller.projectId);
      const now = keys.now();
      const expiresAt = keyExpiry(body, keyLifetime ?? {}, now);
      const { name, scopes } = body;
      const { record, key } = await mintAgentKey(body.userId, { name, scopes, agentId, expiresAt }, now);
      if (body.grantId !== undefined) record.grantId = body.grantId;
      if (!await keys.mint(caller.projectId, record, kind, sdkActor(req))) {
        if (body.grantId !== undefined) throw new SvcError("NOT_FOUND", "The grant has ended");
        throw agentIdTaken(agentId);
      }
      return mintAnswer(record, key);
    },
  }),
  defineRoute({
    name: "rerollKey",
    method: "POST",
    path: "/v1/sdk/keys/:id/reroll",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Replace a user's key in force with a new one (same name, scopes and agentId; shown once); the old " +
      "key keeps working for the grace, then is revoked (reason reroll, through the feed). A key that is unknown, " +
      "another user's, revoked, expired or an OAuth grant's (which rotates its own key) is not found",
    params: anyKeyId,
    body: z.object({
      userId,
      graceMinutes: z.number().int().min(0).max(MAX_GRACE_MINUTES).optional()
        .describe("How long the old key keeps working, in minutes (default 60)"),
      expiresAt: z.iso.datetime({ offset: true }).optional()
        .describe("The app's own bound for the new key's expiry: the earlier of it and the project's policy applies"),
    }),
    responses: { 201: mintedKeySchema, 404: errorEnvelopeSchema },
    async run({ req, caller, params, body }, { keys, violations }) {
      const { keyLifetime } = await violations.policy(caller.projectId);
      const at = keys.now();
      const rerolled = await keys.reroll(caller.projectId, body.userId, params.id, {
        graceMinutes: body.graceMinutes ?? 60,
        expiresAt: (old) => earlier(successorExpiry(old, keyLifetime ?? {}, at), body.expiresAt),
      }, appActor(req));
      if (rerolled === null) throw new SvcError("NOT_FOUND", "No such key in force");
      return mintAnswer(rerolled.record, rerolled.key);
    },
  }),
  defineRoute({
    name: "listKeys",
    method: "GET",
    path: "/v1/sdk/keys",
    auth: "sdk",
    summary: "List a user's keys",
    query: z.object({ userId }),
    responses: { 200: keyListSchema },
    async run({ caller, query }, deps) {
      const keys = await deps.keys.list(caller.projectId, query.userId);
      const now = deps.keys.now();
      return json({ keys: keys.map((key) => publicKey(keyAt(key, now))) });
    },
  }),
  defineRoute({
    name: "revokeUserKeys",
    method: "DELETE",
    path: "/v1/sdk/keys",
    auth: "sdk",
    // No limit: a revocation never waits behind the project's write budget.
    summary: "Revoke every active key of a user, in one transaction (a feed row and an audit entry per key, " +
      "one audit entry for the action; never limited by the project's write budget)",
    query: z.object({ userId }),
    responses: { 200: revokedUserKeysSchema },
    async run({ req, caller, query }, deps) {
      const revoked = await deps.keys.revokeAllOfUser(caller.projectId, query.userId, "tooling", sdkActor(req));
      return json({ ok: true, revoked: revoked.length });
    },
  }),
  defineRoute({
    name: "verifyKey",
    method: "POST",
    path: "/v1/sdk/keys/verify",
    auth: "sdk",
    summary: "Verify an agent key",
    body: z.object({ key: z.string().max(1000) }),
    responses: { 200: keyVerificationSchema },
    async run({ caller, body }, { keys, storage, refusals, log }) {
      // Never say why a key is invalid: unknown, revoked and another project's look the same.
      const found = body.key.startsWith(AGENT_KEY_PREFIX) ? await keys.findByHash(await hashSecret(body.key)) : null;
      const now = keys.now();
      const ours = found !== null && found.projectId === caller.projectId;
      if (ours && isRevocationDue(found.record, now)) await keys.writeDueRevocations(caller.projectId);
      if (
        ours && found.record.revokedAt === null && !isRevocationDue(found.record, now) && isExpired(found.record, now)
      ) {
        await refusals.record(
          caller.projectId,
          newViolation("EXPIRED_KEY", {
            keyId: found.record.id,
            userId: found.record.userId,
            message: "An expired key was used",
            metadata: { via: "verify", expiresAt: found.record.expiresAt },
          }),
        );
        return json({ valid: false });
      }
      if (found === null || !ours || keyAt(found.record, now).revokedAt !== null) {
        if (found !== null && ours) {
          // A cloud-mode app cannot tell a revoked key from an unknown one: the cloud records the use for it,
          // once per key and window (with the count of repeats), however often the key is tried.
          await refusals.record(
            caller.projectId,
            newViolation("REVOKED_KEY", {
              keyId: found.record.id,
              userId: found.record.userId,
              message: "A revoked key was used",
              metadata: { via: "verify" },
            }),
          );
        }
        return json({ valid: false });
      }
      const { id, userId, name, scopes, agentId, lastUsedAt } = found.record;
      await recordUse(storage, caller.projectId, id, lastUsedAt, log);
      // The contract's shape; a key's expiry and scheduled revocation only when it has them, so a cloud-mode
      // app's cached verification stops at the right time.
      const { expiresAt, revokesAt } = found.record;
      const lifetime = { ...expiresAt ? { expiresAt } : {}, ...revokesAt ? { revokesAt } : {} };
      const { grantId } = found.record;
      return json({
        valid: true,
        key: { id, userId, name, scopes, agentId, ...lifetime, ...grantId ? { grantId } : {} },
      });
    },
  }),
  defineRoute({
    name: "revokeKey",
    method: "DELETE",
    path: "/v1/sdk/keys/:id",
    auth: "sdk",
    // No limit: a revocation never waits behind the project's write budget.
    summary: "Revoke a key (never limited by the project's write budget)",
    params: anyKeyId,
    query: z.object({
      reason: z.enum(["tooling", "app", "oauth"]).default("tooling")
        .describe("Who asks: tooling (default), app (a cloud-mode app for its user) or oauth (a grant ended)"),
      userId: userId.optional().describe("Revoke only a key of this user (404 otherwise)"),
    }),
    responses: { 200: revokedKeySchema, 404: errorEnvelopeSchema },
    async run({ req, caller, params, query }, deps) {
      if (query.userId !== undefined && (await deps.keys.find(caller.projectId, params.id))?.userId !== query.userId) {
        throw new SvcError("NOT_FOUND", "No such key");
      }
      const by = query.reason === "tooling" ? sdkActor(req) : appActor(req);
      const revokedAt = await deps.keys.revoke(caller.projectId, params.id, query.reason, by);
      if (revokedAt === null) throw new SvcError("NOT_FOUND", "No such key");
      return json({ ok: true, id: params.id, revokedAt });
    },
  }),
  defineRoute({
    name: "mirrorKey",
    method: "PUT",
    path: "/v1/sdk/keys/:id",
    auth: "sdk",
    // Drawn from the project's write budget in `run`, except by a record that revokes.
    summary: "Mirror a hybrid app's key record (idempotent; a revoked record never becomes active again; " +
      "a revoked record is never limited by the project's write budget; its expiry is held to the project's " +
      "keyLifetime maximum from its createdAt)",
    params: z.object({ id: z.uuid() }),
    body: mirrorKeyBody,
    // No 404: ids and hashes are unique per project, so a record is stored whatever other projects hold.
    responses: { 200: okSchema, 429: errorEnvelopeSchema },
    async run({ req, caller, body, params }, deps) {
      if (body.revokedAt === null) deps.takeProjectWrite(caller);
      // The same agentId rules as minting: the user's own id, an agt_<uuid>, or the shared inbox.
      checkAgentId(body.userId, body.agentId, true);
      // The project's policy holds a mirrored key as it holds one the cloud mints: no expiry, or one past the
      // maximum, becomes the maximum from the key's creation.
      const { keyLifetime } = await deps.violations.policy(caller.projectId);
      const { reroll, ...fields } = body;
      const expiresAt = heldExpiry(fields, keyLifetime ?? {}, deps.keys.now());
      const record = { id: params.id, ...fields, expiresAt, lastUsedAt: null };
      const outcome = await deps.keys.mirror(caller.projectId, record, appActor(req), reroll);
      // Only this project's own records can refuse it: what other projects hold changes neither the
      // answer nor what is stored (a copy of another project's hash never authenticates: see findKeyAuth).
      if (outcome === "agent_taken") throw agentIdTaken(body.agentId);
      if (outcome === "hash_taken") {
        throw new SvcError("VALIDATION_ERROR", "Invalid request", {
          details: {
            issues: [{
              path: "hash",
              message: "Another key of this project has this hash, or this key had another hash",
            }],
          },
        });
      }
      return json({ ok: true });
    },
  }),
];

/** The earlier of two expiries (ISO 8601; `null` or absent: never). */
function earlier(a: string | null, b: string | undefined): string | null {
  if (b === undefined) return a;
  if (a === null) return new Date(b).toISOString();
  return Date.parse(b) < Date.parse(a) ? new Date(b).toISOString() : a;
}
