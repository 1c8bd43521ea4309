/**
 * The app as the OAuth 2.1 authorization server of its own `/svc`: its rows of
 * the `/svc` route table (discovery, `/svc/oauth/{authorize,token,register,revoke}`)
 * and the `WWW-Authenticate` challenge on the 401s of the agent routes.
 * {@linkcode withOAuth} adds what is no row to the `/svc` handler.
 *
 * @module
 */
import { pathnameOf, type Route } from "../http/mod.ts";
import { createRateLimiter, type RateLimiter, type RefusalsPerAddress } from "../abuse/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import type { KeyService } from "../keys/mod.ts";
import { clientRegistry } from "./clients.ts";
import type { ClientDocumentsOptions } from "./client_metadata_document.ts";
import { consentTokens } from "./consent_token.ts";
import { bearerChallenge, discoveryDocumentOf, OAUTH_PATHS, stepUpChallenge } from "./discovery.ts";
import { OAUTH_DEFAULTS, type OAuthConfig } from "./oauth_config.ts";
import type { OAuthContext } from "./oauth_context.ts";
import type { ScopeAbout } from "./consent_page.ts";
import { OAUTH_JSON_HEADERS, OAuthError } from "./oauth_error.ts";
import type { OAuthStorage } from "./oauth_storage.ts";
import { mintSecret, type Violation } from "../contract/mod.ts";
import { oauthRoutes, type OAuthSide } from "./oauth_routes.ts";
import { PLATFORM } from "../platform/mod.ts";

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
  /** Its rows of the `/svc` route table: the discovery documents and the four endpoints. */
  routes: Route<OAuthSide>[];
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

  const routes = oauthRoutes({ context, originOf, scopes: options.scopes, registrations, now, log: options.log });
  return { routes, originOf, scopes: options.scopes, scopeChallenge };
}

/**
 * Completes the `/svc` handler serving the OAuth server's rows with what is no row: the CORS preflight (`OPTIONS`,
 * every OAuth path but the authorization endpoint), `HEAD` of a discovery document, and the `405` of another method
 * in RFC 6749's error JSON; and adds the `WWW-Authenticate: Bearer resource_metadata="…", scope="…"` challenge to
 * the 401s of `/svc/mcp` and `/svc/agent/*`.
 *
 * @param handle The `/svc` handler, whose table holds `oauth.routes`.
 * @param oauth The OAuth server.
 * @returns The combined handler.
 *
 * @example Serve the OAuth routes in /svc's table (what `createSvc` does when `oauth` is set)
 * ```ts ignore
 * const oauth = createOAuthServer({ config, scopes, userResolver, services, log });
 * const served = withOAuth(createHandler({ ...options, routes: [...routes, ...oauth.routes] }), oauth);
 * ```
 */
export function withOAuth(
  handle: (req: Request) => Promise<Response>,
  oauth: OAuthServer,
): (req: Request) => Promise<Response> {
  const methods = new Map<string, string[]>();
  for (const route of oauth.routes) methods.set(route.path, [...methods.get(route.path) ?? [], route.method]);
  return async (req) => {
    const path = pathnameOf(req.url);
    const allowed = methods.get(path);
    if (allowed !== undefined && !allowed.includes(req.method)) {
      const document = discoveryDocumentOf(path) !== null;
      if (req.method === "OPTIONS" && path !== OAUTH_PATHS.authorize) {
        return new Response(null, { status: 204, headers: CORS_PREFLIGHT });
      }
      if (req.method === "HEAD" && document) return await handle(new Request(req, { method: "GET" }));
      return notAllowed(document ? "GET, HEAD" : path === OAUTH_PATHS.authorize ? "GET, POST" : "POST, OPTIONS");
    }
    const res = await handle(req);
    if (res.status !== 401) return res;
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
