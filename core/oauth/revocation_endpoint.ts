/**
 * `POST /svc/oauth/revoke` (RFC 7009): a client ends its grant by presenting
 * its access token (an agent key) or its refresh token. The answer is 200
 * whether or not the token was known, as the RFC asks. An access token nobody
 * issued counts against its address's budget of refused agent keys, as at
 * `/svc/agent/run`: past it, `429`, and in cloud mode no verify call.
 *
 * @module
 */
import { rateLimited } from "../abuse/mod.ts";
import { AGENT_KEY_PREFIX, hashSecret } from "../contract/mod.ts";
import type { VerifiedKey } from "../keys/mod.ts";
import { readForm } from "./form_body.ts";
import { endGrant, type OAuthContext } from "./oauth_context.ts";
import { OAUTH_JSON_HEADERS, OAuthError } from "./oauth_error.ts";
import type { Grant } from "./oauth_storage.ts";
import { REFRESH_TOKEN_PREFIX } from "./token_endpoint.ts";

/**
 * Answers the revocation endpoint.
 *
 * @param req The request.
 * @param ctx The context.
 * @returns 200 with an empty body.
 * @throws {OAuthError} For a request without a token or a client.
 */
export async function revocationEndpoint(req: Request, ctx: OAuthContext): Promise<Response> {
  const form = await readForm(req);
  if (form === null) {
    throw new OAuthError("invalid_request", "The body must be an application/x-www-form-urlencoded form");
  }
  const token = form.get("token");
  if (!token) throw new OAuthError("invalid_request", "token is required");
  const clientId = form.get("client_id");
  if (!clientId) throw new OAuthError("invalid_client", "client_id is required", 401);
  let grant: Grant | null = null;
  if (token.startsWith(AGENT_KEY_PREFIX)) {
    // Any key of the grant, a replaced one too, ends it (in cloud mode a key the cloud revoked verifies as unknown).
    const key = await keyOfToken(req, ctx, token);
    grant = key && (key.grantId ? await ctx.storage.findGrant(key.grantId) : await ctx.storage.findGrantByKey(key.id));
  } else if (token.startsWith(REFRESH_TOKEN_PREFIX)) {
    const stored = await ctx.storage.findRefreshToken(await hashSecret(token));
    grant = stored && await ctx.storage.findGrant(stored.grantId);
  }
  // A token of another client's grant is left alone (RFC 7009 §2.1), and answered like an unknown one. An ended grant
  // has its key revoked again: the end may have been written while the cloud could not be reached (a retry ends it).
  if (grant !== null && grant.clientId === clientId) await endGrant(ctx, grant);
  return new Response(null, { status: 200, headers: OAUTH_JSON_HEADERS });
}

/**
 * The key of an access token, checked as the agent routes check a key: from an address past its budget of refused
 * keys, only what is known without a verify call at the cloud (else `429`); an unknown key takes from the budget.
 */
async function keyOfToken(req: Request, ctx: OAuthContext, token: string): Promise<VerifiedKey | null> {
  const limit = ctx.refusalsPerAddress;
  const wait = limit?.waitMs(req) ?? 0;
  const known = wait > 0 && ctx.keys.verifyKnown ? await ctx.keys.verifyKnown(token) : undefined;
  if (wait > 0 && ctx.keys.verifyKnown && known === undefined) throw rateLimited(wait);
  const key = known === undefined ? await ctx.keys.verify(token) : known;
  if (key === null) limit?.refused(req); // past the budget: 429 instead of the RFC's 200
  return key;
}
