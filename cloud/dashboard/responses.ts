/**
 * The dashboard's responses: HTML with the security headers on every one
 * (a strict Content-Security-Policy, no framing, no sniffing, no referrer,
 * no caching), and redirects after a form.
 *
 * @module
 */
import type { html } from "hono/html";

/** A fragment of HTML from `hono/html`'s tagged template, escaped by default. */
export type Html = ReturnType<typeof html>;

/**
 * The headers every dashboard response carries.
 *
 * @param secure Whether browsers reach the dashboard over https (adds HSTS).
 * @returns The headers.
 */
export function securityHeaders(secure: boolean): Headers {
  const headers = new Headers({
    "content-security-policy":
      "default-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'; object-src 'none'",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=()",
    "cache-control": "no-store",
  });
  if (secure) headers.set("strict-transport-security", "max-age=31536000");
  return headers;
}

/**
 * An HTML page.
 *
 * @param body The document.
 * @param secure Whether browsers reach the dashboard over https.
 * @param status The status (default 200).
 * @param cookies `Set-Cookie` values.
 * @returns The response.
 */
export async function htmlPage(body: Html, secure: boolean, status = 200, cookies: string[] = []): Promise<Response> {
  const headers = securityHeaders(secure);
  headers.set("content-type", "text/html; charset=utf-8");
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response((await body).toString(), { status, headers });
}

/**
 * A `303 See Other` after a form, so a reload never posts again.
 *
 * @param location Where to go (a path under `/dashboard`).
 * @param secure Whether browsers reach the dashboard over https.
 * @param cookies `Set-Cookie` values.
 * @returns The response.
 */
export function redirect(location: string, secure: boolean, cookies: string[] = []): Response {
  const headers = securityHeaders(secure);
  headers.set("location", location);
  for (const c of cookies) headers.append("set-cookie", c);
  return new Response(null, { status: 303, headers });
}

/**
 * A static asset of the dashboard.
 *
 * @param body The content.
 * @param type Its media type.
 * @param secure Whether browsers reach the dashboard over https.
 * @returns The response, cacheable for an hour.
 */
export function asset(body: string, type: string, secure: boolean): Response {
  const headers = securityHeaders(secure);
  headers.set("content-type", type);
  headers.set("cache-control", "public, max-age=3600");
  return new Response(body, { headers });
}
