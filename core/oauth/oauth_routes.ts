/**
 * The OAuth server's routes as rows of the `/svc` route table: the path-aware discovery documents (at the origin's
 * root, outside `/svc`) and `/svc/oauth/{authorize,token,register,revoke}`. Every row is public (`none`): an OAuth
 * request carries its own credentials (a code and its PKCE verifier, a refresh token, the user's session on the
 * consent form) and answers its refusals in RFC 6749's error JSON, never the toolkit's envelope. What is no row (the
 * CORS preflight, `HEAD` of a document, the `405` of another method) is answered by {@linkcode withOAuth}.
 *
 * @module
 */
import { z } from "zod";
import { clientAddress, readJson, type Route } from "../http/mod.ts";
import { addressKey, rateLimited, type RateLimiter } from "../abuse/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { authorizeEndpoint } from "./authorize_endpoint.ts";
import { discoveryDocumentOf, OAUTH_PATHS, resourceMetadata, serverMetadata } from "./discovery.ts";
import type { OAuthContext } from "./oauth_context.ts";
import { OAuthError, oauthErrorResponse, oauthJson } from "./oauth_error.ts";
import { revocationEndpoint } from "./revocation_endpoint.ts";
import { tokenEndpoint } from "./token_endpoint.ts";

/** The side OAuth's rows are written for: public routes that need nothing of the table's services. */
export interface OAuthSide {
  /** Only public routes. */
  callers: { none: null };
  /** No limit of the table: the OAuth server keeps its own. */
  limits: Record<never, never>;
  /** Nothing: the rows hold the OAuth server's own services. */
  deps: unknown;
}

/** What the rows answer with. */
export interface OAuthRoutesOptions {
  /** The endpoints' services, once the app's storage is open. */
  context: Promise<OAuthContext>;
  /** The public origin of a request. */
  originOf(req: Request): string;
  /** The app's scopes. */
  scopes: readonly string[];
  /** Registrations per client address, when limited. */
  registrations?: RateLimiter;
  /** The clock, in milliseconds. */
  now(): number;
  /** Where unexpected failures go. */
  log: ErrorLogger;
}

const REGISTRATION_LIMIT = 16 * 1024;
const FORM = "application/x-www-form-urlencoded";

/** The discovery URLs that hold a document: Protected Resource Metadata of each protected path, and the issuer's. */
export const OAUTH_DOCUMENT_PATHS: readonly string[] = [
  "/.well-known/oauth-protected-resource/svc",
  "/.well-known/oauth-protected-resource/svc/mcp",
  "/.well-known/oauth-protected-resource/svc/agent/intents",
  "/.well-known/oauth-protected-resource/svc/agent/run",
  "/.well-known/oauth-authorization-server/svc",
];

/** RFC 6749 §5.2's error answer, also that of RFC 7591 and RFC 7009. */
const oauthErrorSchema = z.object({ error: z.string(), error_description: z.string() })
  .describe("An OAuth error (RFC 6749 §5.2): `{ error, error_description }`");

const resourceMetadataSchema = z.looseObject({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  bearer_methods_supported: z.array(z.string()),
  resource_name: z.string(),
}).describe("Protected Resource Metadata (RFC 9728)");

const serverMetadataSchema = z.looseObject({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  scopes_supported: z.array(z.string()),
}).describe("Authorization Server Metadata (RFC 8414)");

/**
 * The authorization request in the query (RFC 6749 §4.1.1, PKCE, RFC 8707). Every field is optional here, so the
 * dispatcher never refuses it: the endpoint checks it and answers a refusal in its own way (a page or a redirect).
 */
const authorizeQuerySchema = z.object({
  response_type: z.string().optional().describe("code"),
  client_id: z.string().optional().describe(
    "A registered client_id, or the https URL of a Client ID Metadata Document",
  ),
  redirect_uri: z.string().optional().describe("One of the client's redirect URIs, exactly"),
  code_challenge: z.string().optional().describe("PKCE: the S256 challenge"),
  code_challenge_method: z.string().optional().describe("S256"),
  state: z.string().optional(),
  scope: z.string().optional().describe("The scopes asked for, space-separated"),
  resource: z.string().optional().describe("ORIGIN/svc or ORIGIN/svc/mcp (RFC 8707)"),
});

const consentFormSchema = z.object({
  response_type: z.literal("code"),
  client_id: z.string(),
  redirect_uri: z.string(),
  code_challenge: z.string(),
  code_challenge_method: z.literal("S256"),
  state: z.string().optional(),
  scope: z.string().optional(),
  resource: z.string().optional(),
  csrf: z.string(),
  decision: z.enum(["allow", "deny"]),
  granted_scope: z.union([z.string(), z.array(z.string())]).optional(),
}).describe("The consent form: the authorization request, its consent token and the user's decision");

const tokenFormSchema = z.object({
  grant_type: z.enum(["authorization_code", "refresh_token"]),
  client_id: z.string(),
  code: z.string().optional(),
  code_verifier: z.string().optional(),
  redirect_uri: z.string().optional(),
  refresh_token: z.string().optional(),
  resource: z.string().optional(),
}).describe("A token request (RFC 6749 §4.1.3, §6), PKCE's verifier (RFC 7636)");

const tokenSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  expires_in: z.number(),
  refresh_token: z.string(),
  scope: z.string(),
}).describe("The tokens: the access token is an agent key");

const registrationSchema = z.looseObject({
  redirect_uris: z.array(z.string()).min(1).max(10),
  client_name: z.string().optional(),
}).describe("Client metadata (RFC 7591)");

const registeredSchema = z.looseObject({
  client_id: z.string(),
  client_id_issued_at: z.number(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  token_endpoint_auth_method: z.literal("none"),
  grant_types: z.array(z.string()),
  response_types: z.array(z.string()),
}).describe("The registered client (RFC 7591 §3.2.1): a public client, no secret");

const revocationFormSchema = z.object({
  token: z.string(),
  token_type_hint: z.enum(["access_token", "refresh_token"]).optional(),
  client_id: z.string().optional(),
}).describe("A revocation request (RFC 7009)");

const html = z.string().describe("An HTML page: the consent, a refusal, or a sign-in prompt");

/**
 * The OAuth server's rows of the `/svc` table.
 *
 * @param options The endpoints' services, origin, scopes, registration limit, clock and logger.
 * @returns The rows, each public.
 */
export function oauthRoutes(options: OAuthRoutesOptions): Route<OAuthSide>[] {
  const { context, log } = options;
  /** Runs an endpoint with its services, any failure as RFC 6749's error JSON. */
  const endpoint =
    (answer: (req: Request, ctx: OAuthContext) => Promise<Response>) => async ({ req }: { req: Request }) => {
      try {
        return await answer(req, await context);
      } catch (error) {
        return oauthErrorResponse(error, log);
      }
    };
  const documents: Route<OAuthSide>[] = OAUTH_DOCUMENT_PATHS.map((path) => {
    const document = discoveryDocumentOf(path)!;
    return {
      method: "GET",
      path,
      auth: "none",
      summary: document.kind === "resource"
        ? `Protected Resource Metadata of ${document.resourcePath} (RFC 9728)`
        : "Authorization Server Metadata of the issuer /svc (RFC 8414)",
      responses: { 200: document.kind === "resource" ? resourceMetadataSchema : serverMetadataSchema },
      run({ req }) {
        const origin = options.originOf(req);
        const body = document.kind === "resource"
          ? resourceMetadata(origin, document.resourcePath, options.scopes)
          : serverMetadata(origin, options.scopes);
        return Promise.resolve(
          new Response(JSON.stringify(body), {
            headers: {
              "content-type": "application/json",
              "access-control-allow-origin": "*",
              "cache-control": "public, max-age=300",
            },
          }),
        );
      },
    };
  });
  const authorize = endpoint((req, ctx) => authorizeEndpoint(req, ctx, options.originOf(req)));
  return [
    ...documents,
    {
      method: "GET",
      path: OAUTH_PATHS.authorize,
      auth: "none",
      summary: "The authorization endpoint: the consent page of the signed-in user, or the way to sign in",
      mediaType: "text/html; charset=utf-8",
      query: authorizeQuerySchema,
      responses: { 200: html, 302: null, 400: html, 401: html },
      run: authorize,
    },
    {
      method: "POST",
      path: OAUTH_PATHS.authorize,
      auth: "none",
      summary: "The consent form's decision: redirects to the client with a code, or with access_denied",
      mediaType: "text/html; charset=utf-8",
      body: consentFormSchema,
      bodyMediaType: FORM,
      responses: { 302: null, 400: html, 401: html, 403: html },
      run: authorize,
    },
    {
      method: "POST",
      path: OAUTH_PATHS.token,
      auth: "none",
      summary: "The token endpoint: a code and its PKCE verifier, or a refresh token, for an access token",
      body: tokenFormSchema,
      bodyMediaType: FORM,
      responses: { 200: tokenSchema, 400: oauthErrorSchema, 401: oauthErrorSchema, 429: oauthErrorSchema },
      run: endpoint(tokenEndpoint),
    },
    {
      method: "POST",
      path: OAUTH_PATHS.register,
      auth: "none",
      summary: "Dynamic Client Registration (RFC 7591)",
      body: registrationSchema,
      bodyMediaType: "application/json",
      responses: { 201: registeredSchema, 400: oauthErrorSchema, 429: oauthErrorSchema },
      run: endpoint(async (req, ctx) => {
        const address = clientAddress(req);
        // An IPv6 client counts by its /64, as one host usually holds all of it.
        const decision = options.registrations && address !== null
          ? options.registrations.take(addressKey(address))
          : undefined;
        if (decision?.allowed === false) throw rateLimited(decision.retryAfterMs);
        let body: unknown;
        try {
          body = await readJson(req, REGISTRATION_LIMIT);
        } catch {
          throw new OAuthError("invalid_client_metadata", "The body must be JSON (application/json) of at most 16 KiB");
        }
        return oauthJson(await ctx.clients.register(body, new Date(options.now()).toISOString()), 201);
      }),
    },
    {
      method: "POST",
      path: OAUTH_PATHS.revoke,
      auth: "none",
      summary: "Token revocation (RFC 7009): ends the grant of a refresh token or an access token",
      body: revocationFormSchema,
      bodyMediaType: FORM,
      responses: { 200: null, 400: oauthErrorSchema, 429: oauthErrorSchema },
      run: endpoint(revocationEndpoint),
    },
  ];
}
