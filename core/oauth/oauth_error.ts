/**
 * OAuth's own errors (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 7009): a JSON body
 * `{ error, error_description }`, not the toolkit's envelope, which OAuth
 * clients do not read.
 *
 * @module
 */
import { isSvcError } from "../errors/mod.ts";

/** An OAuth error code. */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "unauthorized_client"
  | "unsupported_grant_type"
  | "invalid_scope"
  | "invalid_target"
  | "access_denied"
  | "unsupported_response_type"
  | "unsupported_token_type"
  | "invalid_redirect_uri"
  | "invalid_client_metadata"
  | "server_error";

/** A refusal an OAuth endpoint answers with. */
export class OAuthError extends Error {
  /** The RFC's code. */
  readonly error: OAuthErrorCode;
  /** The HTTP status (400 unless said). */
  readonly status: number;
  /** For a 429: the seconds to wait, sent as `Retry-After`. */
  readonly retryAfterSeconds?: number;

  /**
   * A refusal with the RFC's code.
   *
   * @param error The RFC's code.
   * @param description A safe, human-readable reason.
   * @param status The HTTP status.
   * @param retryAfterSeconds For a 429: the seconds to wait.
   */
  constructor(error: OAuthErrorCode, description: string, status = 400, retryAfterSeconds?: number) {
    super(description);
    this.error = error;
    this.status = status;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The headers of every token, registration and revocation answer (RFC 6749 §5.1), readable cross-origin. */
export const OAUTH_JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json",
  "cache-control": "no-store",
  "access-control-allow-origin": "*",
};

/**
 * A JSON answer of an OAuth endpoint.
 *
 * @param body The body.
 * @param status The status (200 unless said).
 * @returns The response.
 */
export function oauthJson(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: OAUTH_JSON_HEADERS });
}

/**
 * The answer for a thrown value: an {@linkcode OAuthError} as the RFC's error JSON, the toolkit's
 * `RATE_LIMITED` as `429 invalid_request` with its `Retry-After`, another toolkit refusal (4xx) as
 * `invalid_request`; anything else is logged and answered `500 server_error`.
 *
 * @param error Anything thrown.
 * @param log Where unexpected causes go.
 * @returns The response.
 */
export function oauthErrorResponse(error: unknown, log: (message: string, cause: unknown) => void): Response {
  if (error instanceof OAuthError) {
    const headers: Record<string, string> = { ...OAUTH_JSON_HEADERS };
    if (error.status === 401) headers["www-authenticate"] = 'Basic realm="svc"';
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    return new Response(JSON.stringify({ error: error.error, error_description: error.message }), {
      status: error.status,
      headers,
    });
  }
  if (isSvcError(error) && error.code === "RATE_LIMITED") {
    return new Response(JSON.stringify({ error: "invalid_request", error_description: error.message }), {
      status: 429,
      headers: { ...OAUTH_JSON_HEADERS, ...error.headers },
    });
  }
  if (isSvcError(error) && error.status < 500) {
    // A refusal of the toolkit's own (a user id the keys refuse): the client's request cannot succeed as it is.
    return oauthJson({ error: "invalid_request", error_description: error.message }, 400);
  }
  log("OAuth endpoint failed", error);
  return oauthJson({ error: "server_error", error_description: "The server could not answer" }, 500);
}
