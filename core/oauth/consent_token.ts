/**
 * The consent form's CSRF token: an HMAC-SHA-256, under a key kept in the
 * app's database, of the signed-in user, every parameter of the authorization
 * request and the time the form was shown. Another site can neither read it
 * nor make one; it does not fit another user, another request, or a form older
 * than ten minutes.
 *
 * @module
 */
import { base64url } from "./pkce.ts";
import { AUTHORIZATION_PARAMS } from "./authorization_request.ts";

/** How long a consent form may be posted after it was shown. */
export const CONSENT_TTL_MS = 10 * 60_000;

/** Signs and checks consent tokens. */
export interface ConsentTokens {
  /** A token for this user and request, at `now` (ms). */
  issue(userId: string, params: Record<string, string>, now: number): Promise<string>;
  /** Whether a token was issued for this user and request, less than ten minutes before `now`. */
  check(token: string, userId: string, params: Record<string, string>, now: number): Promise<boolean>;
}

/**
 * Consent tokens under a key.
 *
 * @param secret The key's text (from the app's database), read when first needed.
 * @param fields The parameters a token is bound to (default: the authorization request's; an approval's form: its id).
 * @returns The signer.
 */
export function consentTokens(
  secret: () => Promise<string>,
  fields: readonly string[] = AUTHORIZATION_PARAMS,
): ConsentTokens {
  let key: Promise<CryptoKey> | undefined;
  const keyOf = () =>
    key ??= secret().then((text) =>
      crypto.subtle.importKey("raw", new TextEncoder().encode(text), { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify",
      ])
    ).catch((error) => {
      key = undefined;
      throw error;
    });

  const message = (userId: string, params: Record<string, string>, at: number) =>
    new TextEncoder().encode(JSON.stringify([userId, ...fields.map((n) => params[n] ?? null), at]));

  return {
    async issue(userId, params, now) {
      const at = Math.floor(now / 1000);
      const mac = await crypto.subtle.sign("HMAC", await keyOf(), message(userId, params, at));
      return `${at}.${base64url(new Uint8Array(mac))}`;
    },
    async check(token, userId, params, now) {
      const m = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!m) return false;
      const at = Number(m[1]);
      if (now - at * 1000 > CONSENT_TTL_MS || at * 1000 - now > 60_000) return false;
      const mac = Uint8Array.from(atob(m[2].replace(/-/g, "+").replace(/_/g, "/") + "="), (c) => c.charCodeAt(0));
      return await crypto.subtle.verify("HMAC", await keyOf(), mac, message(userId, params, at));
    },
  };
}
