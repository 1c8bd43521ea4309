/**
 * PKCE (RFC 7636), S256 only: OAuth 2.1 drops `plain`.
 *
 * @module
 */

/** A code verifier or an S256 challenge: 43..128 unreserved characters (RFC 7636 §4.1). */
export const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/;

/**
 * The S256 challenge of a verifier: BASE64URL(SHA-256(verifier)).
 *
 * @param verifier The code verifier.
 * @returns The challenge.
 */
export async function s256(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return base64url(digest);
}

/**
 * Whether a verifier answers a challenge.
 *
 * @param verifier The code verifier the client sent.
 * @param challenge The challenge stored with the code.
 * @returns `true` when S256 of the verifier is the challenge.
 */
export async function verifiesChallenge(verifier: string, challenge: string): Promise<boolean> {
  if (!PKCE_VALUE.test(verifier)) return false;
  const computed = await s256(verifier);
  let diff = computed.length ^ challenge.length;
  for (let i = 0; i < Math.min(computed.length, challenge.length); i++) {
    diff |= computed.charCodeAt(i) ^ challenge.charCodeAt(i);
  }
  return diff === 0;
}

/**
 * Bytes as base64url without padding.
 *
 * @param bytes The bytes.
 * @returns The text.
 */
export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
