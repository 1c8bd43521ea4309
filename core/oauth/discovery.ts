/**
 * Discovery: the Protected Resource Metadata (RFC 9728) of `/svc` and the
 * Authorization Server Metadata (RFC 8414) of its issuer, at the URLs the MCP
 * authorization spec (2025-11-25) has clients try, and the `WWW-Authenticate`
 * challenge that points to them.
 *
 * The issuer is `ORIGIN/svc`. The MCP SDK client, given `ORIGIN/svc/mcp`, asks
 * `/.well-known/oauth-protected-resource/svc/mcp` (also named by the 401's
 * `resource_metadata`); for the issuer it asks
 * `/.well-known/oauth-authorization-server/svc`. The origin's root documents and
 * the OpenID Connect forms answer a JSON `404`: a root document would have to
 * name the origin as its identifier, and the app issues no ID tokens. Every URL
 * is built from `oauth.publicUrl` when set, else from the request's origin.
 *
 * @module
 */

/** Where the OAuth endpoints live. */
export const OAUTH_PATHS = {
  authorize: "/svc/oauth/authorize",
  token: "/svc/oauth/token",
  register: "/svc/oauth/register",
  revoke: "/svc/oauth/revoke",
} as const;

const PRM = "/.well-known/oauth-protected-resource";
const ASM = "/.well-known/oauth-authorization-server";

/** The protected paths whose metadata is served path-aware (RFC 9728 §3.1): `/svc` and what lies under it. */
const PROTECTED = /^\/svc(\/mcp|\/agent\/intents|\/agent\/run)?$/;

const OIDC = "/.well-known/openid-configuration";

/**
 * The discovery URLs sent to the toolkit, for a router that lists paths (the Elysia plugin); `svc.handle` answers
 * each. The path-aware ones (`…/svc`, `…/svc/mcp`) hold the documents; the origin's root ones and the OpenID
 * Connect forms are answered with a JSON `404`, so a client probing them reads JSON, not the app's own pages.
 */
export const OAUTH_DISCOVERY_ROUTES: readonly string[] = [
  PRM,
  PRM + "/svc",
  PRM + "/svc/mcp",
  PRM + "/svc/agent/intents",
  PRM + "/svc/agent/run",
  ASM,
  ASM + "/svc",
  OIDC,
  OIDC + "/svc",
];

/** What a discovery path asks for. */
export type DiscoveryDocument = { kind: "resource"; resourcePath: string } | { kind: "server" };

/**
 * The document a path asks for, or `null` when the app serves none there. Only the path-aware URLs hold one: a
 * document at the origin's root would have to name the origin itself as its issuer or resource (RFC 8414 §3.3,
 * RFC 9728 §3.3), and the app's issuer and resources are under `/svc`, so the root URLs answer `404`.
 *
 * @param path A request's pathname.
 * @returns What to serve.
 */
export function discoveryDocumentOf(path: string): DiscoveryDocument | null {
  if (path.startsWith(PRM + "/")) {
    const resourcePath = path.slice(PRM.length);
    return PROTECTED.test(resourcePath) ? { kind: "resource", resourcePath } : null;
  }
  if (path === ASM + "/svc") return { kind: "server" };
  return null;
}

/**
 * Whether a path is one of the discovery URLs (`/.well-known/…`) the toolkit answers, so a router that sends
 * only `/svc/*` to `handle` can send these too (`withSvc` and `svcPlugin` do).
 *
 * @param path A request's pathname.
 * @returns `true` for the OAuth metadata URLs of `/svc`.
 *
 * @example Route the discovery URLs by hand
 * ```ts
 * import { isOAuthDiscoveryPath } from "@svc/agent-access";
 * isOAuthDiscoveryPath("/.well-known/oauth-protected-resource/svc/mcp"); // true
 * isOAuthDiscoveryPath("/.well-known/security.txt"); // false
 * ```
 */
export function isOAuthDiscoveryPath(path: string): boolean {
  return discoveryDocumentOf(path) !== null || OAUTH_DISCOVERY_ROUTES.includes(path);
}

/**
 * Whether a path is a discovery URL or an endpoint of the OAuth server (`/svc/oauth/…`).
 *
 * @param path A request's pathname.
 * @returns `true` for the OAuth routes.
 *
 * @example The token endpoint
 * ```ts
 * import { isOAuthPath } from "./discovery.ts";
 * isOAuthPath("/svc/oauth/token"); // true
 * ```
 */
export function isOAuthPath(path: string): boolean {
  return isOAuthDiscoveryPath(path) || (Object.values(OAUTH_PATHS) as string[]).includes(path);
}

/**
 * The Protected Resource Metadata of a path under `/svc`.
 *
 * @param origin The app's public origin.
 * @param resourcePath `/svc`, `/svc/mcp`, …
 * @param scopes The app's scopes.
 * @returns The RFC 9728 document.
 */
export function resourceMetadata(origin: string, resourcePath: string, scopes: readonly string[]): object {
  return {
    resource: origin + resourcePath,
    authorization_servers: [issuerOf(origin)],
    scopes_supported: [...scopes],
    bearer_methods_supported: ["header"],
    resource_name: "Agent access",
  };
}

/**
 * The Authorization Server Metadata.
 *
 * @param origin The app's public origin.
 * @param scopes The app's scopes.
 * @returns The RFC 8414 document.
 */
export function serverMetadata(origin: string, scopes: readonly string[]): object {
  return {
    issuer: issuerOf(origin),
    authorization_endpoint: origin + OAUTH_PATHS.authorize,
    token_endpoint: origin + OAUTH_PATHS.token,
    registration_endpoint: origin + OAUTH_PATHS.register,
    revocation_endpoint: origin + OAUTH_PATHS.revoke,
    scopes_supported: [...scopes],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

/**
 * The issuer: the app's `/svc`.
 *
 * @param origin The app's public origin.
 * @returns `ORIGIN/svc`.
 */
export function issuerOf(origin: string): string {
  return origin + "/svc";
}

/**
 * The challenge of a 401 from a protected route: where its metadata is and the scopes to ask for.
 *
 * @param origin The app's public origin.
 * @param path The refused request's pathname.
 * @param scopes The app's scopes.
 * @param presented Whether a token was presented (then `error="invalid_token"`).
 * @returns The `WWW-Authenticate` value.
 */
export function bearerChallenge(origin: string, path: string, scopes: readonly string[], presented: boolean): string {
  const params = [`realm="svc"`, `resource_metadata="${metadataUrlOf(origin, path)}"`];
  if (scopes.length) params.push(`scope="${scopes.join(" ")}"`);
  if (presented) params.push(`error="invalid_token"`);
  return "Bearer " + params.join(", ");
}

/**
 * The challenge of a scope step-up (MCP 2025-11-25, "Scope Challenge Handling"; RFC 6750 §3.1): the `403` of a
 * request whose OAuth access token lacks a scope the intent needs. `scope` names every scope the intent needs and
 * the scopes the token already holds (the spec's recommended approach), so re-authorizing with it loses nothing.
 *
 * @param origin The app's public origin.
 * @param path The refused request's pathname (`/svc/mcp` or `/svc/agent/run`).
 * @param scopes The scopes to ask for, space-free names.
 * @returns The `WWW-Authenticate` value.
 *
 * @example The challenge of a call to /svc/mcp
 * ```ts
 * import { stepUpChallenge } from "./discovery.ts";
 * stepUpChallenge("https://app.example.com", "/svc/mcp", ["notes:read", "notes:write"]);
 * // Bearer realm="svc", error="insufficient_scope", scope="notes:read notes:write", resource_metadata="…"
 * ```
 */
export function stepUpChallenge(origin: string, path: string, scopes: readonly string[]): string {
  return `Bearer realm="svc", error="insufficient_scope", scope="${scopes.join(" ")}", ` +
    `resource_metadata="${metadataUrlOf(origin, path)}", ` +
    `error_description="This token lacks a scope the call needs: authorize again with these scopes"`;
}

/** The Protected Resource Metadata URL of a protected path: `/svc/mcp`'s own, else `/svc`'s. */
function metadataUrlOf(origin: string, path: string): string {
  return `${origin}${PRM}${path === "/svc/mcp" ? "/svc/mcp" : "/svc"}`;
}
