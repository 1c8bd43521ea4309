/**
 * Secrets: minting random tokens, hashing them for storage, comparing hashes
 * without early exit, and reading a Bearer credential.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import { sha256Hex } from "./sha256.ts";
import { PLATFORM } from "../platform/mod.ts";

/** The prefix of every agent key. */
export const AGENT_KEY_PREFIX = "svc_live_";
/** The prefix of every project sdkSecret. */
export const SDK_SECRET_PREFIX = "svcs_";
/** How many characters of a key are kept in clear for recognition. */
export const KEY_START_LENGTH = 12;

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const TOKEN_BODY_LENGTH = 40;

/**
 * Mints a secret: the prefix and 40 base62 characters from `crypto.getRandomValues`
 * (about 238 bits), drawn without modulo bias.
 *
 * @param prefix `svc_live_` or `svcs_`.
 * @returns The plaintext secret.
 */
export function mintSecret(prefix: string): string {
  let out = prefix;
  while (out.length < prefix.length + TOKEN_BODY_LENGTH) {
    for (const byte of PLATFORM.randomBytes(64)) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 4 × 62: no bias
      if (out.length === prefix.length + TOKEN_BODY_LENGTH) break;
    }
  }
  return out;
}

/**
 * The SHA-256 of a secret, as lowercase hex: the only form in which secrets are stored.
 * Computed synchronously (`sha256Hex`): for a short secret that is cheaper than
 * `crypto.subtle`'s asynchronous round trip, which every agent request would pay.
 *
 * @param secret The plaintext.
 * @returns 64 hex characters.
 */
export function hashSecret(secret: string): Promise<string> {
  return Promise.resolve(sha256Hex(secret));
}

/**
 * Compares two strings in time that depends only on their length.
 *
 * @param a One string.
 * @param b The other.
 * @returns Whether they are equal.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/i;
/** Every secret has at least this many base62 characters after its prefix (the toolkit mints 40). */
const MIN_SECRET_BODY = 32;

/**
 * Reads `Authorization: Bearer <token>` strictly: the scheme (in any case, as
 * RFC 7235 says), one space, a token of letters, digits and underscores with at
 * least 32 characters after the prefix, nothing else.
 *
 * @param req The request.
 * @param prefix The prefix the token must carry.
 * @returns The token, or `null` when absent, malformed or of another kind.
 */
export function bearerToken(req: Request, prefix: string): string | null {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const token = BEARER.exec(header)?.[1];
  return token !== undefined && token.startsWith(prefix) && token.length >= prefix.length + MIN_SECRET_BODY
    ? token
    : null;
}

/**
 * The refusal of a missing or bad Bearer credential: `401 UNAUTHORIZED` with
 * the RFC 6750 challenge (MCP clients rely on it).
 *
 * @param message A safe message.
 * @returns The error to throw.
 */
export function unauthorized(message: string): SvcError {
  return new SvcError("UNAUTHORIZED", message, { headers: { "www-authenticate": 'Bearer realm="svc"' } });
}

// No word boundary: a key glued to a word character ("x" + key, "_" + key) is still a key. The body stops
// where another prefix starts, so two secrets glued together are both redacted.
const SECRET_SHAPED = /(svc_live_|svcs_)(?:(?!svc_live_|svcs_)[A-Za-z0-9]){4,}/g;

/**
 * Replaces anything shaped like an agent key or an sdkSecret with its prefix
 * and an ellipsis, wherever it stands (glued to other text or not), for text
 * that is echoed, stored or logged (an agent that
 * sends its key as an intent name must not find it in the violation list).
 *
 * @param text Any text.
 * @returns The text without secret-shaped tokens.
 */
export function redactSecrets(text: string): string {
  // Both prefixes start with "svc": text without it (an intent's name, most messages) skips the expression.
  return text.includes("svc") ? text.replace(SECRET_SHAPED, "$1…") : text;
}
