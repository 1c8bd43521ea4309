/**
 * The app as the OAuth 2.1 authorization server of its own `/svc`: discovery,
 * `/svc/oauth/{authorize,token,register,revoke}`, and the `WWW-Authenticate`
 * challenge on the 401s of the agent routes. {@linkcode withOAuth} puts it in
 * front of the `/svc` handler.
 *
 * @module
 */
import { clientAddress, readJson } from "../../http/mod.ts";
import {
  addressKey,
  createRateLimiter,
  rateLimited,
  type RateLimiter,
  type RefusalsPerAddress,
} from "../../abuse/mod.ts";
import { pathnameOf } from "../../http/mod.ts";
import type { ErrorLogger } from "../../logging/mod.ts";
import type { KeyService } from "../../keys/mod.ts";
import { authorizeEndpoint } from "./authorize_endpoint.ts";
import { clientRegistry } from "./clients.ts";
import type { ClientDocumentsOptions } from "./client_metadata_document.ts";
import { consentTokens } from "./consent_token.ts";
import {
  bearerChallenge,
  discoveryDocumentOf,
  OAUTH_PATHS,
  resourceMetadata,
  serverMetadata,
  stepUpChallenge,
} from "./discovery.ts";
import { OAUTH_DEFAULTS, type OAuthConfig } from "./oauth_config.ts";
import type { OAuthContext } from "./oauth_context.ts";
import type { ScopeAbout } from "./consent_page.ts";
import { OAUTH_JSON_HEADERS, OAuthError, oauthErrorResponse, oauthJson } from "./oauth_error.ts";
import type { OAuthStorage } from "./oauth_storage.ts";
import { mintSecret, type Violation } from "../../contract/mod.ts";
import { revocationEndpoint } from "./revocation_endpoint.ts";
import { tokenEndpoint } from "./token_endpoint.ts";
import { PLATFORM } from "../../platform/mod.ts";

/** What the OAuth server is built from. */
export interface OAuthServerOptions {
  /** The `oauth` option. */
  config: OAuthConfig;
  /** The app's scopes. */
  scopes: readonly string[];
  /** What each scope allows, for the consent page. */
  scopeAbout?: Readonly<Record<string, ScopeAbout>>;
  /** The app's `userResolver`. */
  userResolver: (req: Request) => string | null | undefined | Promise<string | null | undefined>;
  /** The keys, the OAuth storage and the violation recorder, once the app's storage is open. */
  services: Promise<{ keys: KeyService; storage: OAuthStorage; recordViolation(violation: Violation): void }>;
  /** Where unexpected failures go. */
  log: ErrorLogger;
  /** The clock, in milliseconds. Default `Date.now`. */
  now?: () => number;
  /**
   * The app's limit on refused agent keys per client address (`rateLimit.refusalsPerAddress`), shared with the
   * agent routes: a made-up access token at the revocation endpoint counts against it, as at `/svc/agent/run`.
   */
  refusalsPerAddress?: RefusalsPerAddress;
  /**
   * The HTTP client and bounds of Client ID Metadata Document fetches: their own `fetch`, never the cloud link's.
   * Default `globalThis.fetch` and `CLIENT_DOCUMENT_LIMITS`.
   */
  clientDocuments?: Pick<ClientDocumentsOptions, "fetch" | "limits">;
}

/** The OAuth server. */
export interface OAuthServer {
  /** The answer to an OAuth or discovery request, or `null` when the request is for another route. */
  answer(req: Request): Promise<Response | null>;
  /** The public origin of a request (the `publicUrl` option, else the request's). */
  originOf(req: Request): string;
  /** The app's scopes, for the challenge. */
  scopes: readonly string[];
  /**
   * The `WWW-Authenticate` challenge of a scope step-up when `key` is the access token in force of an OAuth grant,
   * else `null` (a pasted key cannot be re-authorized: its refusal stays as it is).
   */
  scopeChallenge(req: Request, key: { id: string; scopes: readonly string[] }, needed: readonly string[]): Promise<
    string | null
  >;
}

const REGISTRATION_LIMIT = 16 * 1024;
const MAX_USER_ID = 200;
const CORS_PREFLIGHT = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, mcp-protocol-version",
  "access-control-max-age": "600",
};

/**
 * Creates the OAuth server.
 *
 * @param options Config, scopes, users, services, logger, clock.
 * @returns The server.
 */
export function createOAuthServer(options: OAuthServerOptions): OAuthServer {
  const now = options.now ?? PLATFORM.now;
  const fixedOrigin = options.config.publicUrl === undefined ? undefined : new URL(options.config.publicUrl).origin;
  const originOf = (req: Request) => fixedOrigin ?? new URL(req.url).origin;
  const tokenLimits = {
    perAddress: limiterOf(options.config.tokenRequestsPerAddress, OAUTH_DEFAULTS.tokenRequestsPerAddress, now),
    perGrant: limiterOf(options.config.tokenRequestsPerGrant, OAUTH_DEFAULTS.tokenRequestsPerGrant, now),
  };
  const context: Promise<OAuthContext> = options.services.then(({ keys, storage, recordViolation }) => ({
    config: options.config,
    scopes: options.scopes,
    scopeAbout: options.scopeAbout ?? {},
    async userOf(req) {
      const user = await options.userResolver(req);
      if (typeof user !== "string" || user.length === 0) return null;
      // The keys keep user ids to 200 characters (as the cloud does): refuse here what minting would refuse.
      if (user.length > MAX_USER_ID) throw new OAuthError("invalid_request", "The signed-in user's id is too long");
      return user;
    },
    keys,
    storage,
    clients: clientRegistry(options.config, storage, now, options.clientDocuments),
    consent: consentTokens(() => storage.consentKey(mintSecret(""))),
    now,
    log: options.log,
    recordViolation,
    refusalsPerAddress: options.refusalsPerAddress,
    tokenLimits,
  }));
  context.catch(() => {}); // the app's `ready` reports a storage that cannot be opened
  const registrationRate = options.config.registrationsPerAddress ?? OAUTH_DEFAULTS.registrationsPerAddress;
  const registrations = registrationRate ? createRateLimiter(registrationRate, now) : undefined;

  async function answer(req: Request): Promise<Response | null> {
    const path = pathnameOf(req.url);
    const document = discoveryDocumentOf(path);
    const endpoint = Object.values(OAUTH_PATHS).includes(path as never);
    if (document === null && !endpoint) return null;
    if (req.method === "OPTIONS" && path !== OAUTH_PATHS.authorize) {
      return new Response(null, { status: 204, headers: CORS_PREFLIGHT });
    }
    const origin = originOf(req);
    if (document !== null) {
      if (req.method !== "GET" && req.method !== "HEAD") return notAllowed("GET, HEAD");
      const body = document.kind === "resource"
        ? resourceMetadata(origin, document.resourcePath, options.scopes)
        : serverMetadata(origin, options.scopes);
      return new Response(JSON.stringify(body), {
        headers: {
          "content-type": "application/json",
          "access-control-allow-origin": "*",
          "cache-control": "public, max-age=300",
        },
      });
    }
    try {
      const ctx = await context;
      if (path === OAUTH_PATHS.authorize) {
        if (req.method !== "GET" && req.method !== "POST") return notAllowed("GET, POST");
        return await authorizeEndpoint(req, ctx, origin);
      }
      if (req.method !== "POST") return notAllowed("POST, OPTIONS");
      if (path === OAUTH_PATHS.token) return await tokenEndpoint(req, ctx);
      if (path === OAUTH_PATHS.revoke) return await revocationEndpoint(req, ctx);
      const address = clientAddress(req);
      // An IPv6 client counts by its /64, as one host usually holds all of it.
      const decision = registrations && address !== null ? registrations.take(addressKey(address)) : undefined;
      if (decision?.allowed === false) throw rateLimited(decision.retryAfterMs);
      let body: unknown;
      try {
        body = await readJson(req, REGISTRATION_LIMIT);
      } catch {
        throw new OAuthError("invalid_client_metadata", "The body must be JSON (application/json) of at most 16 KiB");
      }
      return oauthJson(await ctx.clients.register(body, new Date(now()).toISOString()), 201);
    } catch (error) {
      return oauthErrorResponse(error, options.log);
    }
  }

  async function scopeChallenge(
    req: Request,
    key: { id: string; scopes: readonly string[] },
    needed: readonly string[],
  ): Promise<string | null> {
    const grant = await (await context).storage.findGrantByKey(key.id);
    if (grant === null || grant.revokedAt !== null) return null;
    const wanted = new Set([...key.scopes, ...needed]);
    const scopes = [
      ...options.scopes.filter((s) => wanted.has(s)),
      ...needed.filter((s) => !options.scopes.includes(s)),
    ];
    return stepUpChallenge(originOf(req), pathnameOf(req.url), scopes);
  }

  return { answer, originOf, scopes: options.scopes, scopeChallenge };
}

/**
 * Puts the OAuth server in front of the `/svc` handler: it answers discovery and `/svc/oauth/*`, and adds the
 * `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` challenge to the 401s of `/svc/mcp` and
 * `/svc/agent/*`.
 *
 * @param handle The `/svc` handler.
 * @param oauth The OAuth server.
 * @returns The combined handler.
 *
 * @example Serve the OAuth routes beside /svc (what `createSvc` does when `oauth` is set)
 * ```ts ignore
 * const served = withOAuth(handle, createOAuthServer({ config, scopes, userResolver, services, log }));
 * ```
 */
export function withOAuth(
  handle: (req: Request) => Promise<Response>,
  oauth: OAuthServer,
): (req: Request) => Promise<Response> {
  return async (req) => {
    const answered = await oauth.answer(req);
    if (answered !== null) return answered;
    const res = await handle(req);
    if (res.status !== 401) return res;
    const path = pathnameOf(req.url);
    if (path !== "/svc/mcp" && !path.startsWith("/svc/agent/")) return res;
    const headers = new Headers(res.headers);
    const presented = req.headers.has("authorization");
    headers.set("www-authenticate", bearerChallenge(oauth.originOf(req), path, oauth.scopes, presented));
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}

/** A limiter of a configured rate (the default when absent), or `undefined` when turned off. */
function limiterOf(
  rate: { limit: number; windowMs: number } | false | undefined,
  fallback: { limit: number; windowMs: number },
  now: () => number,
): RateLimiter | undefined {
  return rate === false ? undefined : createRateLimiter(rate ?? fallback, now);
}

function notAllowed(allow: string): Response {
  return new Response(JSON.stringify({ error: "invalid_request", error_description: "Method not allowed" }), {
    status: 405,
    headers: { ...OAUTH_JSON_HEADERS, allow },
  });
}
