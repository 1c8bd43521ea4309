/**
 * `POST /svc/keys`, `GET /svc/keys` and `DELETE /svc/keys/:id`: the signed-in
 * user mints, lists and revokes their agent keys.
 *
 * @module
 */
import { z } from "zod";
import { SvcError } from "../contract/errors.ts";
import { json } from "../http/json.ts";
import { keyListSchema, mintedKeySchema, revokedKeySchema } from "../contract/key_responses.ts";
import { mintKeyBody, type MintKeyRequest } from "../contract/agent_keys.ts";
import type { KeyService } from "./key_service.ts";
import { type SvcRoute, svcRoute } from "../http/route.ts";
import { parseOrThrow } from "../http/validation.ts";

/** Any id that is not one of the user's keys, UUID or not, is simply not found. */
const keyPath = z.object({ id: z.string().min(1).max(200) });

/**
 * The key routes.
 *
 * @param keys Where keys live.
 * @param scopes The scopes the app supports; a key can hold only these.
 * @returns The routes.
 */
export function keyRoutes(keys: KeyService, scopes: readonly string[]): SvcRoute[] {
  const supported = new Set(scopes);
  return [
    svcRoute<MintKeyRequest>({
      method: "POST",
      path: "/svc/keys",
      auth: "user",
      summary: "Mint an agent key for the signed-in user; the key is shown once",
      body: mintKeyBody,
      status: 201,
      response: mintedKeySchema,
      async run({ user, body }) {
        const issues = body.scopes.flatMap((s, i) =>
          supported.has(s) ? [] : [{ path: `scopes.${i}`, message: `Unknown scope "${s.slice(0, 100)}"` }]
        );
        if (issues.length) throw new SvcError("VALIDATION_ERROR", "Invalid request", { details: { issues } });
        const { key, secret } = await keys.mint(user, body);
        const { id, name, scopes, agentId, createdAt } = key;
        return json({ id, name, scopes, agentId, key: secret, createdAt }, 201);
      },
    }),
    svcRoute({
      method: "GET",
      path: "/svc/keys",
      auth: "user",
      summary: "List the signed-in user's agent keys",
      response: keyListSchema,
      async run({ user }) {
        return json({ keys: await keys.list(user) });
      },
    }),
    svcRoute({
      method: "DELETE",
      path: "/svc/keys/:id",
      auth: "user",
      summary: "Revoke one of the signed-in user's agent keys",
      params: keyPath,
      response: revokedKeySchema,
      async run({ user, params }) {
        const { id } = parseOrThrow(keyPath, params);
        const revoked = await keys.revoke(user, id);
        if (revoked === null) throw new SvcError("NOT_FOUND", "No such key");
        return json({ ok: true, ...revoked });
      },
    }),
  ];
}
