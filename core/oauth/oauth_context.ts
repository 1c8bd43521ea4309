/**
 * What every OAuth endpoint is given, and the grant operations they share.
 *
 * @module
 */
import type { RateLimiter, RefusalsPerAddress } from "../abuse/mod.ts";
import type { ScopeAbout } from "./consent_page.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { newViolation, type Violation } from "../contract/mod.ts";
import type { KeyService, MintResult } from "../keys/mod.ts";
import type { ClientRegistry } from "./clients.ts";
import type { ConsentTokens } from "./consent_token.ts";
import type { OAuthConfig } from "./oauth_config.ts";
import type { Grant, OAuthStorage } from "./oauth_storage.ts";

/** The services of the OAuth endpoints. */
export interface OAuthContext {
  /** The `oauth` option. */
  config: OAuthConfig;
  /** The app's scopes. */
  scopes: readonly string[];
  /** What each scope allows (its description, the intents that need it), for the consent page. */
  scopeAbout: Readonly<Record<string, ScopeAbout>>;
  /** The signed-in user of a request, or `null`. */
  userOf(req: Request): Promise<string | null>;
  /** The app's keys: access tokens are keys. */
  keys: KeyService;
  /** Codes, grants, refresh tokens, registered clients. */
  storage: OAuthStorage;
  /** Who a client is. */
  clients: ClientRegistry;
  /** The consent form's CSRF tokens. */
  consent: ConsentTokens;
  /** The clock, in milliseconds. */
  now(): number;
  /** Where unexpected failures go. */
  log: ErrorLogger;
  /** Records a violation (the app's recorder: stored, reported, counted toward auto-revoke). */
  recordViolation(violation: Violation): void;
  /** The app's limit on refused agent keys per client address, when limited. */
  refusalsPerAddress?: RefusalsPerAddress;
  /** Refused token requests per client address (IPv6 per /64), and refreshes per grant (`undefined`: off). */
  tokenLimits: { perAddress?: RateLimiter; perGrant?: RateLimiter };
}

/** The longest key name (`POST /svc/keys`'s bound). */
const KEY_NAME_MAX = 100;

/**
 * Mints the access token of a grant: an agent key of the user, scoped as granted, named after the client,
 * expiring after the access token's life.
 *
 * @param ctx The context.
 * @param grant The user, the client's name and the scopes.
 * @param ttlSeconds The access token's life.
 * @returns The minted key.
 */
export function mintAccessToken(
  ctx: OAuthContext,
  grant: Pick<Grant, "id" | "userId" | "clientName">,
  scopes: string[],
  ttlSeconds: number,
): Promise<MintResult> {
  return ctx.keys.mint(grant.userId, {
    name: grant.clientName.slice(0, KEY_NAME_MAX),
    scopes,
    expiresAt: new Date(ctx.now() + ttlSeconds * 1000).toISOString(),
    grantId: grant.id,
  });
}

/**
 * Ends a grant: its refresh tokens stop working, no rotation replaces its key from then on, and its access token in
 * force at that moment is revoked, with any other key of the grant still active (a rotation under way loses, and
 * revokes the key it minted). Idempotent: on a grant ended already it revokes that key again, so a revoke the cloud
 * did not hear (cloud mode) is done by a retry.
 *
 * @param ctx The context.
 * @param grant The grant.
 * @returns The id of the key it revoked (the grant's key in force), or `null`.
 */
export async function endGrant(ctx: OAuthContext, grant: Grant): Promise<string | null> {
  const keyId = await ctx.storage.revokeGrant(grant.id, new Date(ctx.now()).toISOString());
  // Every key of the grant still active, not only the one in force: one a rotation minted and could not revoke (it
  // lost, and the process stopped before its revoke) or replaced and could not revoke yet.
  const others = await ctx.storage.activeKeysOfGrant(grant.id);
  for (const id of new Set([...keyId === null ? [] : [keyId], ...others])) {
    await ctx.keys.revoke(grant.userId, id, "oauth");
  }
  return keyId;
}

/**
 * Records that a code or refresh token was presented again (a sign that someone else holds it) and its grant ended,
 * naming the key that was in force (the one auto-revoke should count).
 *
 * @param ctx The context.
 * @param grant The grant it belonged to.
 * @param keyId The grant's key in force when it ended.
 * @param token Which kind of token.
 */
export function recordReplay(
  ctx: OAuthContext,
  grant: Grant,
  keyId: string | null,
  token: "authorization_code" | "refresh_token",
): void {
  if (keyId === null) return;
  ctx.recordViolation(newViolation("OAUTH_TOKEN_REPLAYED", {
    keyId,
    userId: grant.userId,
    message: `An OAuth ${token.replace("_", " ")} was used twice; the grant was ended and its key revoked`,
    metadata: { token, clientId: grant.clientId.slice(0, 200), grantId: grant.id },
  }));
}
