/**
 * `POST /svc/keys`, `GET /svc/keys` and `DELETE /svc/keys/:id`: the signed-in
 * user mints, lists and revokes their agent keys.
 *
 * @module
 */
import { z } from "zod";
import { errorEnvelopeSchema } from "../../contract/mod.ts";
import { SvcError } from "../../errors/mod.ts";
import { mintKeyBody } from "../../contract/mod.ts";
import { keyListSchema, mintedKeySchema, revokedKeySchema } from "../../contract/mod.ts";
import { json } from "../../http/mod.ts";
import { defineRoute } from "./app_side.ts";

/** The key routes: the signed-in user mints, lists and revokes their agent keys. */
export const keyRoutes = [
  defineRoute({
    method: "POST",
    path: "/svc/keys",
    auth: "user",
    summary: "Mint an agent key for the signed-in user; the key is shown once",
    body: mintKeyBody,
    responses: { 201: mintedKeySchema },
    async run({ caller: user, body }, { keys, scopes: supported }) {
      const issues = body.scopes.flatMap((s, i) =>
        supported.includes(s) ? [] : [{ path: `scopes.${i}`, message: `Unknown scope "${s.slice(0, 100)}"` }]
      );
      if (issues.length) throw new SvcError("VALIDATION_ERROR", "Invalid request", { details: { issues } });
      const { key, secret } = await keys.mint(user, body);
      const { id, name, scopes, agentId, createdAt } = key;
      return json({ id, name, scopes, agentId, key: secret, createdAt }, 201);
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
    method: "DELETE",
    path: "/svc/keys/:id",
    auth: "user",
    summary: "Revoke one of the signed-in user's agent keys",
    // Any id that is not one of the user's keys, UUID or not, is simply not found.
    params: z.object({ id: z.string().min(1).max(200) }),
    responses: { 200: revokedKeySchema, 404: errorEnvelopeSchema },
    async run({ caller: user, params }, { keys }) {
      const revoked = await keys.revoke(user, params.id);
      if (revoked === null) throw new SvcError("NOT_FOUND", "No such key");
      return json({ ok: true, ...revoked });
    },
  }),
];
