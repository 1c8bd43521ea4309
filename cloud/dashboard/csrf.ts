/**
 * Cross-site request forgery protection for every form: a token derived from
 * the session's (or, signed out, a pre-session cookie's) secret, plus the
 * browser's own signals. `Origin: null` is accepted, because Chromium sends it
 * on a page's own form posts under `Referrer-Policy: no-referrer`; the token
 * and `Sec-Fetch-Site` decide then.
 *
 * @module
 */
import { hashSecret, timingSafeEqual } from "../../core/contract/mod.ts";

/** The hidden form field holding the token. */
export const CSRF_FIELD = "csrf";

/**
 * The CSRF token of forms bound to a cookie's secret.
 *
 * @param seed The session token or the pre-session cookie's value.
 * @returns The token to put in forms.
 */
export function csrfToken(seed: string): Promise<string> {
  return hashSecret(`csrf:${seed}`);
}

/**
 * Whether a form post may be trusted: it comes from this site, and carries the token of its cookie.
 *
 * @param req The request.
 * @param form The posted form.
 * @param seed The session token or the pre-session cookie's value, or `undefined` when there is none.
 * @param origin The dashboard's origin as browsers see it (its public URL's, else the request's).
 * @returns `true` when the post is the site's own.
 */
export async function trustedPost(
  req: Request,
  form: URLSearchParams,
  seed: string | undefined,
  origin: string,
): Promise<boolean> {
  const site = req.headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return false;
  const from = req.headers.get("origin");
  if (from !== null && from !== "null" && from !== origin) return false;
  const given = form.get(CSRF_FIELD);
  if (!seed || !given) return false;
  return timingSafeEqual(given, await csrfToken(seed));
}
