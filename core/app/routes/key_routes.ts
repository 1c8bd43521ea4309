/**
 * `POST /svc/keys`, `GET /svc/keys`, `DELETE /svc/keys/:id` and `POST /svc/keys/:id/reroll`: the signed-in
 * user mints, lists, revokes and rerolls their agent keys.
 *
 * @module
 */
import { z } from "zod";
import { errorEnvelopeSchema } from "../../contract/mod.ts";
import { SvcError } from "../../errors/mod.ts";
import { mintKeyBody } from "../../contract/mod.ts";
import { keyListSchema, mintedKeySchema, revokedKeySchema } from "../../contract/mod.ts";
import { json } from "../../http/mod.ts";
import { keyExpiry, type MintResult, successorExpiry } from "../../keys/mod.ts";
import { defineRoute } from "./app_side.ts";

/** The longest grace of a reroll, in minutes (7 days). */
export const MAX_REROLL_GRACE_MINUTES = 10_080;
/** A reroll's grace when none is given, in minutes. */
export const DEFAULT_REROLL_GRACE_MINUTES = 60;

/** The body of `POST /svc/keys/:id/reroll`. */
export const rerollKeyBody = z.object({
  graceMinutes: z.number().int().min(0).max(MAX_REROLL_GRACE_MINUTES).optional()
    .describe("How long the old key keeps working, in minutes (default 60)"),
});

/** Any id that is not one of the user's keys, UUID or not, is simply not found. */
const anyKeyId = z.object({ id: z.string().min(1).max(200) });

/** The answer of a mint: the listed key's fields and the plaintext, shown once. */
function minted({ key, secret }: MintResult): Response {
  const { id, name, scopes, agentId, createdAt } = key;
  return json({ id, name, scopes, agentId, key: secret, createdAt }, 201);
}

/** The key routes: the signed-in user mints, lists, revokes and rerolls their agent keys. */
export const keyRoutes = [
  defineRoute({
    method: "POST",
    path: "/svc/keys",
    auth: "user",
    summary: "Mint an agent key for the signed-in user; the key is shown once",
    body: mintKeyBody,
    responses: { 201: mintedKeySchema },
    async run({ caller: user, body }, { keys, scopes: supported, keyLifetime, now, link }) {
      link.credentialsAccepted(); // a key minted now would be refused everywhere: nothing is stored
      const issues = body.scopes.flatMap((s, i) =>
        supported.includes(s) ? [] : [{ path: `scopes.${i}`, message: `Unknown scope "${s.slice(0, 100)}"` }]
      );
      if (issues.length) throw new SvcError("VALIDATION_ERROR", "Invalid request", { details: { issues } });
      const { name, scopes, agentId } = body;
      const expiresAt = keyExpiry(body, await keyLifetime(), now());
      return minted(await keys.mint(user, { name, scopes, agentId, expiresAt }));
    },
  }),
  defineRoute({
    method: "GET",
    path: "/svc/keys",
    auth: "user",
    summary: "List the signed-in user's agent keys",
    responses: { 200: keyListSchema },
    async run({ caller: user }, { keys }) {
      return json({ keys: await keys.list(user) });
    },
  }),
  defineRoute({
    method: "POST",
    path: "/svc/keys/:id/reroll",
    auth: "user",
    summary: "Replace one of the signed-in user's keys in force with a new one (same name, scopes and agentId; " +
      "shown once); the old key keeps working for the grace, then is revoked (reason reroll). A key that is " +
      "unknown, another user's, revoked or expired is not found, and so is an OAuth grant's key (the grant " +
      "rotates its own key)",
    params: anyKeyId,
    body: rerollKeyBody,
    responses: { 201: mintedKeySchema, 404: errorEnvelopeSchema },
    async run({ caller: user, params, body }, { keys, keyLifetime, now, link }) {
      link.credentialsAccepted();
      const at = now();
      const graceMinutes = body.graceMinutes ?? DEFAULT_REROLL_GRACE_MINUTES;
      const bounds = await keyLifetime();
      const rerolled = await keys.reroll(user, params.id, {
        graceMinutes,
        revokesAt: new Date(at + graceMinutes * 60_000).toISOString(),
        expiresAt: (old) => successorExpiry(old, bounds, at),
      });
      if (rerolled === null) throw new SvcError("NOT_FOUND", "No such key in force");
      return minted(rerolled);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/svc/keys/:id",
    auth: "user",
    summary: "Revoke one of the signed-in user's agent keys",
    params: anyKeyId,
    responses: { 200: revokedKeySchema, 404: errorEnvelopeSchema },
    async run({ caller: user, params }, { keys }) {
      const revoked = await keys.revoke(user, params.id);
      if (revoked === null) throw new SvcError("NOT_FOUND", "No such key");
      return json({ ok: true, ...revoked });
    },
  }),
];
