/**
 * Checking an authorization request (RFC 6749 §4.1.1 with OAuth 2.1's PKCE,
 * RFC 8707's `resource`). The client and its redirect URI are checked first:
 * until both are, a refusal is shown to the user and never sent anywhere.
 * After, a refusal is a {@linkcode RedirectableError}: the authorization
 * endpoint sends it back to the client only when the signed-in user has
 * consented to that client before (RFC 9700 §4.11.2), else shows it.
 *
 * @module
 */
import type { ClientRegistry, OAuthClient } from "./clients.ts";
import { OAuthError, type OAuthErrorCode } from "./oauth_error.ts";
import { PKCE_VALUE } from "./pkce.ts";

/** The parameters of an authorization request, as the consent form carries them back. */
export const AUTHORIZATION_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;

/** A checked authorization request. */
export interface AuthorizationRequest {
  /** The client. */
  client: OAuthClient;
  /** The redirect URI, one the client registered exactly. */
  redirectUri: string;
  /** The scopes asked for (all the app's scopes when none are named). */
  scopes: string[];
  /** The client's `state`, returned as it came. */
  state: string | null;
  /** The PKCE S256 challenge. */
  codeChallenge: string;
  /** The resource the token is for. */
  resource: string;
  /** The parameters as received, to carry through the consent form. */
  params: Record<string, string>;
}

/** A refusal before the redirect URI is trusted: shown to the user, never redirected. */
export class UntrustedRedirectError extends Error {}

/** A refusal after it is: sent back to the client's redirect URI when the user has consented to the client. */
export class RedirectableError extends Error {
  /** The RFC's code. */
  readonly error: OAuthErrorCode;
  /** The client it would be sent to. */
  readonly clientId: string;
  /** Where to send it. */
  readonly redirectUri: string;
  /** The client's state. */
  readonly state: string | null;

  /**
   * A refusal to send back to the client.
   *
   * @param error The RFC's code.
   * @param description The reason.
   * @param redirectUri The checked redirect URI.
   * @param state The client's state.
   * @param clientId The client.
   */
  constructor(
    error: OAuthErrorCode,
    description: string,
    redirectUri: string,
    state: string | null,
    clientId: string,
  ) {
    super(description);
    this.error = error;
    this.clientId = clientId;
    this.redirectUri = redirectUri;
    this.state = state;
  }
}

/**
 * Checks an authorization request.
 *
 * @param input The request's parameters (query for GET, form for POST).
 * @param context The client registry, the app's scopes, the resources a token may be for, and the request (whose
 *   address a metadata document's fetch is limited by).
 * @returns The checked request.
 * @throws {UntrustedRedirectError} When the client or the redirect URI is not right.
 * @throws {RedirectableError} For any other problem.
 */
export async function checkAuthorizationRequest(
  input: URLSearchParams,
  context: { clients: ClientRegistry; scopes: readonly string[]; resources: readonly string[]; from?: Request },
): Promise<AuthorizationRequest> {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const values = input.getAll(name);
    if (values.length > 1) throw new UntrustedRedirectError(`The parameter ${name} is given more than once`);
    if (values.length === 1) {
      if (values[0].length > 2000) throw new UntrustedRedirectError(`The parameter ${name} is too long`);
      params[name] = values[0];
    }
  }
  const clientId = params.client_id;
  if (!clientId) throw new UntrustedRedirectError("The request names no client (client_id)");
  let client: OAuthClient | null;
  try {
    client = await context.clients.find(clientId, context.from);
  } catch (error) {
    if (error instanceof OAuthError) throw new UntrustedRedirectError(error.message);
    throw error;
  }
  if (client === null) throw new UntrustedRedirectError("The client is not known here (client_id)");
  const redirectUri = params.redirect_uri ??
    (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (redirectUri === undefined || !client.redirectUris.includes(redirectUri)) {
    throw new UntrustedRedirectError("The redirect_uri is not one the client registered");
  }
  const state = params.state ?? null;
  const fail = (error: OAuthErrorCode, why: string) => new RedirectableError(error, why, redirectUri, state, clientId);
  if (params.response_type !== "code") throw fail("unsupported_response_type", "response_type must be code");
  if (params.code_challenge === undefined) throw fail("invalid_request", "PKCE is required (code_challenge)");
  if (params.code_challenge_method !== "S256") {
    throw fail("invalid_request", "code_challenge_method must be S256");
  }
  if (!PKCE_VALUE.test(params.code_challenge)) throw fail("invalid_request", "code_challenge is malformed");
  const asked = (params.scope ?? "").split(" ").filter((s) => s.length > 0);
  const unknown = asked.filter((s) => !context.scopes.includes(s));
  if (unknown.length) throw fail("invalid_scope", `Unknown scope: ${unknown[0].slice(0, 100)}`);
  const scopes = asked.length ? [...new Set(asked)] : [...context.scopes];
  const resource = params.resource ?? context.resources[0];
  if (!context.resources.includes(resource)) {
    throw fail("invalid_target", `resource must be ${context.resources.join(" or ")}`);
  }
  return { client, redirectUri, scopes, state, codeChallenge: params.code_challenge, resource, params };
}

/**
 * The URL that sends the answer back to the client (RFC 6749 §4.1.2, with RFC 9207's `iss`).
 *
 * @param redirectUri The checked redirect URI.
 * @param answer `code` or `error` (and `error_description`).
 * @param state The client's state.
 * @param issuer The issuer.
 * @returns The URL to redirect to.
 */
export function redirectWith(
  redirectUri: string,
  answer: Record<string, string>,
  state: string | null,
  issuer: string,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(answer)) url.searchParams.set(name, value);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.href;
}
