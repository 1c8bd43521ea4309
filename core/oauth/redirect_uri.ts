/**
 * Which redirect URIs a client may register: `https`, `http` on a loopback
 * host (native apps, RFC 8252 §7.3), or a private-use scheme (`cursor://…`,
 * `com.example.app:/cb`); never a fragment, never a scheme that runs or reads
 * something in the browser.
 *
 * @module
 */
import { isLoopbackHost } from "./network_address.ts";

const REFUSED_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "blob:",
  "about:",
  "ws:",
  "wss:",
  "ftp:",
]);

/**
 * Why a redirect URI may not be registered, or `null` when it may.
 *
 * @param uri The URI.
 * @returns A reason, or `null`.
 */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2000) {
    return "must be a URL of at most 2000 characters";
  }
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "must be an absolute URL";
  }
  if (uri.includes("#")) return "must not have a fragment";
  if (url.username || url.password) return "must not carry credentials";
  if (REFUSED_SCHEMES.has(url.protocol)) return `must not use ${url.protocol}`;
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) return "http is allowed on loopback hosts only";
  return null;
}

/**
 * The origin (or scheme) a browser is sent to by a redirect URI: what the consent page names and allows as a
 * form target.
 *
 * @param uri A registered redirect URI.
 * @returns `https://host:port`, or `scheme:` for a private-use scheme.
 */
export function redirectTarget(uri: string): { origin: string; host: string } {
  const url = new URL(uri);
  if (url.protocol === "http:" || url.protocol === "https:") return { origin: url.origin, host: url.host };
  return { origin: url.protocol, host: url.protocol + (url.host ? "//" + url.host : "") };
}
