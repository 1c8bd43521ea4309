/**
 * `POST /svc/oauth/token`: an authorization code (with its PKCE verifier) or a
 * refresh token for an access token, which is an agent key. Refresh tokens
 * rotate: each is good once, and a second use ends the grant (OAuth 2.1 §4.3.1,
 * the sign of a stolen token). Bad input is refused with the RFC's error and
 * changes nothing. Refused requests are limited per client address (IPv6 per /64)
 * and refreshes per grant (429 with `Retry-After`, in the RFC's error shape).
 *
 * @module
 */
import { hashSecret, mintSecret } from "../contract/mod.ts";
import { readForm } from "./form_body.ts";
import { OAUTH_DEFAULTS } from "./oauth_config.ts";
import { endGrant, mintAccessToken, type OAuthContext, recordReplay } from "./oauth_context.ts";
import { clientAddress } from "../http/mod.ts";
import { addressKey, type RateLimiter } from "../abuse/mod.ts";
import { isSvcError } from "../errors/mod.ts";
import { OAuthError, oauthJson } from "./oauth_error.ts";
import type { Grant, RefreshToken } from "./oauth_storage.ts";
import { verifiesChallenge } from "./pkce.ts";
import { PLATFORM } from "../platform/mod.ts";

/** The prefix of refresh tokens. */
export const REFRESH_TOKEN_PREFIX = "svcr_";

/**
 * Answers the token endpoint.
 *
 * @param req The request.
 * @param ctx The context.
 * @returns The tokens.
 * @throws {OAuthError} For every refusal.
 */
export async function tokenEndpoint(req: Request, ctx: OAuthContext): Promise<Response> {
  try {
    return await answer(req, ctx);
  } catch (error) {
    // Only refused requests count against their address (per /64 for IPv6): the clients behind one proxy never lock
    // each other out with junk, and a valid refresh is bounded per grant. Past the budget, 429 instead of the refusal.
    const address = clientAddress(req);
    if (error instanceof OAuthError && error.status < 429 && address !== null) {
      limit(ctx.tokenLimits.perAddress, addressKey(address), "refused from this address");
    }
    throw error;
  }
}

async function answer(req: Request, ctx: OAuthContext): Promise<Response> {
  const form = await readForm(req);
  if (form === null) {
    throw new OAuthError("invalid_request", "The body must be an application/x-www-form-urlencoded form");
  }
  const field = (name: string, required = true): string | undefined => {
    const values = form.getAll(name);
    if (values.length > 1) throw new OAuthError("invalid_request", `${name} is given more than once`);
    if (required && !values[0]) throw new OAuthError("invalid_request", `${name} is required`);
    return values[0];
  };
  const grantType = field("grant_type")!;
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
  }
  const clientId = field("client_id")!;
  const client = await ctx.clients.find(clientId, req).catch((e) => {
    if (e instanceof OAuthError) return null;
    throw e;
  });
  if (client === null) throw new OAuthError("invalid_client", "The client is not known here", 401);
  return grantType === "authorization_code"
    ? await exchangeCode(ctx, clientId, client.name, field)
    : await refresh(ctx, clientId, field);
}

type Field = (name: string, required?: boolean) => string | undefined;

/** Takes one token request from a limiter's bucket, else refuses it with 429 and `Retry-After`. */
function limit(limiter: RateLimiter | undefined, bucket: string, whose: string): void {
  const decision = limiter?.take(bucket);
  if (decision === undefined || decision.allowed) return;
  const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
  throw new OAuthError("invalid_request", `Too many token requests ${whose}: retry in ${seconds} s`, 429, seconds);
}

async function exchangeCode(ctx: OAuthContext, clientId: string, clientName: string, field: Field): Promise<Response> {
  const code = field("code")!;
  const redirectUri = field("redirect_uri")!;
  const verifier = field("code_verifier")!;
  const resource = field("resource", false);
  const hash = await hashSecret(code);
  const stored = await ctx.storage.findCode(hash);
  const now = ctx.now();
  if (stored === null) throw new OAuthError("invalid_grant", "The code is not known");
  if (stored.clientId !== clientId) throw new OAuthError("invalid_grant", "The code was issued to another client");
  if (stored.usedAt !== null) {
    // A replayed code: whoever holds it may have its tokens; the grant it produced ends (RFC 6749 §4.1.2).
    const grant = stored.grantId === null ? null : await ctx.storage.findGrant(stored.grantId);
    if (grant !== null && grant.revokedAt === null) {
      recordReplay(ctx, grant, await endGrant(ctx, grant), "authorization_code");
    }
    throw new OAuthError("invalid_grant", "The code was already used");
  }
  if (now >= stored.expiresAt) throw new OAuthError("invalid_grant", "The code has expired");
  if (stored.redirectUri !== redirectUri) throw new OAuthError("invalid_grant", "redirect_uri does not match");
  if (!await verifiesChallenge(verifier, stored.codeChallenge)) {
    throw new OAuthError("invalid_grant", "The code_verifier does not match the code_challenge");
  }
  if (resource !== undefined && resource !== stored.resource) {
    throw new OAuthError("invalid_target", "resource differs from the authorization request's");
  }
  const ttl = ctx.config.accessTokenTtlSeconds ?? OAUTH_DEFAULTS.accessTokenTtlSeconds;
  const grant: Grant = {
    id: PLATFORM.randomUUID(),
    clientId,
    clientName,
    userId: stored.userId,
    scopes: stored.scopes,
    resource: stored.resource,
    keyId: null,
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
  };
  // The grant is stored with the code's use, in one write: a concurrent use of the same code that loses finds it.
  if (!await ctx.storage.useCode(hash, now, grant)) {
    const used = await ctx.storage.findCode(hash);
    const winner = used?.grantId ? await ctx.storage.findGrant(used.grantId) : null;
    if (winner !== null) recordReplay(ctx, winner, await endGrant(ctx, winner), "authorization_code");
    throw new OAuthError("invalid_grant", "The code was already used");
  }
  const minted = await mintAccessToken(ctx, grant, grant.scopes, ttl);
  const { refresh, token } = await newRefreshToken(ctx, grant.id, now);
  // Only while the grant holds: a replay of the code meanwhile ended it, and the key just minted never serves.
  if (!await ctx.storage.rotate(grant.id, null, minted.key.id, refresh)) {
    await ctx.keys.revoke(grant.userId, minted.key.id, "oauth");
    throw new OAuthError("invalid_grant", "The code was already used; the grant has ended");
  }
  return tokens(minted.secret, ttl, token, grant.scopes);
}

async function refresh(ctx: OAuthContext, clientId: string, field: Field): Promise<Response> {
  const presented = field("refresh_token")!;
  const scope = field("scope", false);
  const resource = field("resource", false);
  const hash = await hashSecret(presented);
  const stored = await ctx.storage.findRefreshToken(hash);
  const grant = stored && await ctx.storage.findGrant(stored.grantId);
  if (stored === null || grant === null) throw new OAuthError("invalid_grant", "The refresh token is not known");
  if (grant.clientId !== clientId) throw new OAuthError("invalid_grant", "The token was issued to another client");
  limit(ctx.tokenLimits.perGrant, grant.id, "for this grant");
  // The grant row is the truth: every revoke of one of its keys ends it (where the keys live, in the same
  // transaction; in cloud mode the cloud refuses to mint for a grant it ended): no key is read here.
  if (grant.revokedAt !== null) {
    // Its key is revoked again (idempotent): the end may have been written while the cloud could not be reached.
    await endGrant(ctx, grant);
    throw new OAuthError("invalid_grant", "The grant has ended");
  }
  const now = ctx.now();
  if (stored.usedAt !== null) {
    recordReplay(ctx, grant, await endGrant(ctx, grant), "refresh_token");
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant has ended");
  }
  if (now >= stored.expiresAt) throw new OAuthError("invalid_grant", "The refresh token has expired");
  if (resource !== undefined && resource !== grant.resource) {
    throw new OAuthError("invalid_target", "resource differs from the grant's");
  }
  const scopes = scope === undefined ? grant.scopes : [...new Set(scope.split(" ").filter((s) => s.length > 0))];
  if (scopes.some((s) => !grant.scopes.includes(s))) {
    throw new OAuthError("invalid_scope", "A refresh may ask for the granted scopes or fewer");
  }
  if (!await ctx.storage.useRefreshToken(hash, now)) {
    recordReplay(ctx, grant, await endGrant(ctx, grant), "refresh_token");
    throw new OAuthError("invalid_grant", "The refresh token was already used; the grant has ended");
  }
  const ttl = ctx.config.accessTokenTtlSeconds ?? OAUTH_DEFAULTS.accessTokenTtlSeconds;
  const minted = await mintAccessToken(ctx, grant, scopes, ttl).catch(async (error) => {
    if (!isSvcError(error) || error.code !== "NOT_FOUND") throw error;
    // Cloud mode: the cloud ended the grant (an operator, auto-revoke, the user) and mints no key for it.
    await ctx.storage.revokeGrant(grant.id, new Date(ctx.now()).toISOString());
    throw new OAuthError("invalid_grant", "The grant has ended");
  });
  const next = await newRefreshToken(ctx, grant.id, now);
  // Only while the grant holds and its key is still the one this refresh replaces; else the new key never serves.
  if (!await ctx.storage.rotate(grant.id, grant.keyId, minted.key.id, next.refresh)) {
    await ctx.keys.revoke(grant.userId, minted.key.id, "oauth");
    throw new OAuthError("invalid_grant", "The grant has ended");
  }
  // The access token it replaces stops working now, rather than at its expiry.
  if (grant.keyId !== null) await ctx.keys.revoke(grant.userId, grant.keyId, "oauth");
  return tokens(minted.secret, ttl, next.token, scopes);
}

async function newRefreshToken(
  ctx: OAuthContext,
  grantId: string,
  now: number,
): Promise<{ refresh: RefreshToken; token: string }> {
  const token = mintSecret(REFRESH_TOKEN_PREFIX);
  const ttl = ctx.config.refreshTokenTtlSeconds ?? OAUTH_DEFAULTS.refreshTokenTtlSeconds;
  return { token, refresh: { hash: await hashSecret(token), grantId, expiresAt: now + ttl * 1000, usedAt: null } };
}

function tokens(accessToken: string, ttl: number, refreshToken: string, scopes: string[]): Response {
  return oauthJson({
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ttl,
    refresh_token: refreshToken,
    scope: scopes.join(" "),
  });
}
