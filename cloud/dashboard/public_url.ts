/**
 * The dashboard's public address, for a cloud behind a proxy that terminates
 * TLS: the process sees `http://127.0.0.1:8787`, browsers see
 * `https://svc.example.com`. Given explicitly, never read from a request
 * header such as `X-Forwarded-Proto`, which any client can send.
 *
 * @module
 */

/**
 * Checks a public URL and returns its origin.
 *
 * @param url An `http://` or `https://` origin, optionally with a trailing `/`
 *   (`https://svc.example.com`).
 * @returns The origin (`https://svc.example.com`; a default port dropped).
 * @throws {TypeError} When it is not an http(s) URL, or has a path, query, fragment or credentials.
 */
export function publicOrigin(url: string): string {
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    // reported below
  }
  if (
    parsed === null || (parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.pathname !== "/" ||
    parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "" ||
    /[?#]/.test(url)
  ) {
    throw new TypeError(
      `The public URL must be an http:// or https:// origin such as https://svc.example.com, ` +
        `without a path, query or fragment; got ${JSON.stringify(url)}`,
    );
  }
  return parsed.origin;
}
