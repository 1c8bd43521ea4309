/**
 * The `oauth` option of `createSvc`: the app as the OAuth 2.1 authorization
 * server of its own `/svc`, for MCP clients.
 *
 * @module
 */
import { z } from "zod";

/** A client the app registers itself (no registration request, no metadata document). */
export interface OAuthClientConfig {
  /** The client's id, as it sends it. */
  clientId: string;
  /** The name the consent page shows and the keys are named after. */
  name: string;
  /** Its redirect URIs, matched exactly. */
  redirectUris: string[];
}

/** The `oauth` option of `createSvc`. */
export interface OAuthConfig {
  /**
   * Where a signed-out user is sent to sign in (absolute, or a path on the app), with `return_to` set to the
   * authorization URL to come back to. The sign-in page should send the user back only to a URL that
   * {@linkcode isOAuthReturnUrl} accepts. Without it, a signed-out user sees a page that asks them to sign in.
   */
  signInUrl?: string;
  /** Clients the app registers itself. */
  clients?: OAuthClientConfig[];
  /**
   * Accept Client ID Metadata Document URLs on loopback and private-network hosts (and `http:` on loopback),
   * for development and tests. Default `false`: such a client_id could make the app fetch from inside its network.
   */
  allowLoopbackClientIds?: boolean;
  /** How long an access token (an agent key) lives, in seconds. Default 3600. */
  accessTokenTtlSeconds?: number;
  /** How long a refresh token lives, in seconds. Default 30 days. */
  refreshTokenTtlSeconds?: number;
  /**
   * Client registrations (`POST /svc/oauth/register`) each client address may make: default 20 a minute
   * (bursts up to 20), then `429` with `Retry-After`; `false` turns the limit off. An IPv4 address counts as
   * itself, an IPv6 address by its /64. A request with no known address (`clientAddress(req)`) is not limited.
   * A registered client that completes no authorization within {@linkcode OAUTH_DEFAULTS}`.unusedClientTtlMs`
   * (a day) is purged.
   */
  registrationsPerAddress?: { limit: number; windowMs: number } | false;
  /**
   * Refused token requests (`POST /svc/oauth/token` answered 400 or 401) each client address may make: default 60 a
   * minute, then `429` with `Retry-After` instead of the refusal; `false` turns the limit off. Valid requests never
   * count (a refresh is bounded per grant). An IPv6 address counts by its /64; a request with no known address is not
   * limited by it.
   */
  tokenRequestsPerAddress?: { limit: number; windowMs: number } | false;
  /**
   * Refreshes each grant may make: default 10 a minute (a client refreshes about once per access token's life),
   * then `429` with `Retry-After`; `false` turns the limit off.
   */
  tokenRequestsPerGrant?: { limit: number; windowMs: number } | false;
  /**
   * The app's public origin (`https://app.example.com`), the base of the issuer and of every metadata URL.
   * Default: the origin of each request, which is right unless a proxy rewrites the Host.
   */
  publicUrl?: string;
}

/** The defaults of {@linkcode OAuthConfig}. */
export const OAUTH_DEFAULTS = {
  accessTokenTtlSeconds: 3600,
  refreshTokenTtlSeconds: 30 * 24 * 3600,
  /** How long an authorization code may wait for its exchange. */
  codeTtlSeconds: 60,
  /** Registrations per client address (an IPv6 /64). */
  registrationsPerAddress: { limit: 20, windowMs: 60_000 },
  /** How long a registered client that never completed an authorization is kept. */
  unusedClientTtlMs: 24 * 60 * 60 * 1000,
  /** Token requests per client address. */
  tokenRequestsPerAddress: { limit: 60, windowMs: 60_000 },
  /** Refreshes per grant. */
  tokenRequestsPerGrant: { limit: 10, windowMs: 60_000 },
} as const;

const rateOrOff = (name: string) =>
  z.union([
    z.literal(false),
    z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
  ], { error: `oauth.${name} must be { limit, windowMs } or false` });

const seconds = (name: string) =>
  z.number({ error: `oauth.${name} must be a positive whole number of seconds` }).int().positive({
    error: `oauth.${name} must be a positive whole number of seconds`,
  });

/** The check of the `oauth` option, part of `createSvc`'s configuration check. */
export const oauthConfigSchema: z.ZodType<OAuthConfig> = z.looseObject({
  signInUrl: z.string({ error: 'oauth.signInUrl must be a path or a URL, such as "/login"' }).min(1).optional(),
  clients: z.array(
    z.object({
      clientId: z.string().min(1),
      name: z.string().min(1).max(200),
      redirectUris: z.array(z.string()).min(1),
    }, { error: "each of oauth.clients must be { clientId, name, redirectUris: [url, …] }" }),
  ).optional(),
  allowLoopbackClientIds: z.boolean().optional(),
  accessTokenTtlSeconds: seconds("accessTokenTtlSeconds").optional(),
  refreshTokenTtlSeconds: seconds("refreshTokenTtlSeconds").optional(),
  registrationsPerAddress: z.union([
    z.literal(false),
    z.object({ limit: z.number().int().positive(), windowMs: z.number().positive() }),
  ], { error: "oauth.registrationsPerAddress must be { limit, windowMs } or false" }).optional(),
  tokenRequestsPerAddress: rateOrOff("tokenRequestsPerAddress").optional(),
  tokenRequestsPerGrant: rateOrOff("tokenRequestsPerGrant").optional(),
  publicUrl: z.url({
    protocol: /^https?$/,
    error: 'oauth.publicUrl must be the app\'s public origin, such as "https://app.example.com"',
  }).optional(),
}, { error: "oauth must be an object: { signInUrl?, clients?, … }" });
