/**
 * `/v1/sdk/keys…`: minting, listing, revoking and verifying agent keys for
 * cloud mode and tooling, and mirroring the key records of hybrid apps.
 *
 * @module
 */
import { z } from "zod";
import { errorEnvelopeSchema } from "../../core/contract/mod.ts";
import { SvcError } from "../../core/agent/mod.ts";
import {
  agentIdTaken,
  agentIdText,
  checkAgentId,
  mintAgentKey,
  mintKeyBody,
  publicKey,
} from "../../core/contract/mod.ts";
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
import type { KeyService } from "./key_service.ts";
import { sdkActor } from "../audit/mod.ts";

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
}

const defineRoute = cloudRouteDefiner<KeyRouteDeps>();

const userId = storedText(1, 200);

/** The body of `POST /v1/sdk/keys`: `POST /svc/keys` plus the owner. */
export const cloudMintKeyBody = mintKeyBody.extend({ userId });

/** The body of `PUT /v1/sdk/keys/:id`: a key record mirrored by a hybrid app, hash only. */
export const mirrorKeyBody = mintKeyBody.pick({ name: true, scopes: true }).extend({
  userId,
  agentId: agentIdText,
  hash: z.string().regex(/^[0-9a-f]{64}$/, "Must be a SHA-256 hex digest"),
  start: z.string().regex(/^svc_live_/, "Must start with svc_live_").max(KEY_START_LENGTH),
  createdAt: timestampInput,
  revokedAt: timestampInput.nullable(),
});

/** The answer of `DELETE /v1/sdk/keys?userId=`: how many of the user's keys this call revoked. */
export const revokedUserKeysSchema: z.ZodType<{ ok: true; revoked: number }> = z.object({
  ok: z.literal(true),
  revoked: z.number().int().nonnegative().describe("Keys of the user this call revoked (0 when none was active)"),
});

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
    responses: { 201: mintedKeySchema },
    async run({ caller, body }, { keys }) {
      // The app checks `default` against its own config before calling; the cloud accepts it.
      const { agentId, kind } = checkAgentId(body.userId, body.agentId, true);
      const { record, key } = await mintAgentKey(body.userId, { name: body.name, scopes: body.scopes, agentId });
      if (!await keys.mint(caller.projectId, record, kind)) throw agentIdTaken(agentId);
      const { id, name, scopes, createdAt } = record;
      return json({ id, name, scopes, agentId, key, createdAt }, 201);
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
      return json({ keys: keys.map(publicKey) });
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
    async run({ caller, body }, { keys, storage, refusals }) {
      // Never say why a key is invalid: unknown, revoked and another project's look the same.
      const found = body.key.startsWith(AGENT_KEY_PREFIX) ? await keys.findByHash(await hashSecret(body.key)) : null;
      if (found === null || found.projectId !== caller.projectId || found.record.revokedAt !== null) {
        if (found !== null && found.projectId === caller.projectId) {
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
      await recordUse(storage, caller.projectId, id, lastUsedAt);
      return json({ valid: true, key: { id, userId, name, scopes, agentId } });
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
    responses: { 200: revokedKeySchema, 404: errorEnvelopeSchema },
    async run({ req, caller, params }, deps) {
      const revokedAt = await deps.keys.revoke(caller.projectId, params.id, "tooling", sdkActor(req));
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
      "a revoked record is never limited by the project's write budget)",
    params: z.object({ id: z.uuid() }),
    body: mirrorKeyBody,
    // No 404: ids and hashes are unique per project, so a record is stored whatever other projects hold.
    responses: { 200: okSchema, 429: errorEnvelopeSchema },
    async run({ req, caller, body, params }, deps) {
      if (body.revokedAt === null) deps.takeProjectWrite(caller);
      // The same agentId rules as minting: the user's own id, an agt_<uuid>, or the shared inbox.
      checkAgentId(body.userId, body.agentId, true);
      const record = { id: params.id, ...body, lastUsedAt: null };
      const outcome = await deps.keys.mirror(caller.projectId, record, sdkActor(req));
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
