/**
 * Signed-in sessions: a random token in an `HttpOnly`, `SameSite=Strict`
 * cookie (`Secure` behind https), stored only as its hash, ending after an idle
 * time, at an absolute limit, or at sign-out.
 *
 * @module
 */
import { hashSecret, mintSecret } from "../../core/contract/mod.ts";
import type { CloudRepositories, OperatorRecord, SessionRecord } from "../database/mod.ts";

/** The session cookie's name. */
export const SESSION_COOKIE = "svc_session";
/** The cookie that binds the CSRF token of the signed-out forms (sign-in, setup). */
export const PRE_SESSION_COOKIE = "svc_pre";
/** Where the cookies are sent. */
export const COOKIE_PATH = "/dashboard";
/** A session's `lastSeenAt` is written at most this often, to spare a write per page. */
const TOUCH_INTERVAL_MS = 60_000;

/** How long sessions live. */
export interface SessionLimits {
  /** Ends after this long without a request, in milliseconds. */
  idleMs: number;
  /** Ends this long after sign-in whatever happens, in milliseconds. */
  maxMs: number;
}

/** A live session. */
export interface Session {
  /** Who is signed in. */
  operator: OperatorRecord;
  /** The cookie's token (the seed of the CSRF token; never stored). */
  token: string;
  /** The stored record. */
  record: SessionRecord;
}

/**
 * The cookies of a request.
 *
 * @param req The request.
 * @returns Name to value.
 */
export function cookiesOf(req: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

/**
 * A `Set-Cookie` value for a dashboard cookie.
 *
 * @param name The cookie.
 * @param value Its value (empty with `maxAgeSeconds` 0 to clear it).
 * @param secure Whether to add `Secure` (browsers reach the dashboard over https).
 * @param maxAgeSeconds Lifetime; omitted for a browser-session cookie.
 * @returns The header value.
 */
export function cookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, `Path=${COOKIE_PATH}`, "HttpOnly", "SameSite=Strict"];
  if (secure) parts.push("Secure");
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join("; ");
}

/**
 * Opens a session for an operator.
 *
 * @param storage The cloud's storage.
 * @param operator Who signed in.
 * @param address Where from, or `null`.
 * @param now The time, in milliseconds.
 * @param limits Idle and absolute limits.
 * @returns The token to put in the cookie.
 */
export async function openSession(
  storage: CloudRepositories,
  operator: OperatorRecord,
  address: string | null,
  now: number,
  limits: SessionLimits,
): Promise<string> {
  const token = mintSecret("svco_");
  const at = new Date(now).toISOString();
  await storage.operators.createSession({
    tokenHash: await hashSecret(token),
    operatorId: operator.id,
    createdAt: at,
    lastSeenAt: at,
    expiresAt: new Date(now + limits.maxMs).toISOString(),
    sourceAddress: address,
  });
  return token;
}

/**
 * The request's live session, or `null`. An expired or idle session is deleted.
 *
 * @param storage The cloud's storage.
 * @param req The request.
 * @param now The time, in milliseconds.
 * @param limits Idle and absolute limits.
 * @returns The session, or `null`.
 */
export async function currentSession(
  storage: CloudRepositories,
  req: Request,
  now: number,
  limits: SessionLimits,
): Promise<Session | null> {
  const token = cookiesOf(req).get(SESSION_COOKIE);
  if (!token || !/^svco_[A-Za-z0-9]{40}$/.test(token)) return null;
  const tokenHash = await hashSecret(token);
  const found = await storage.operators.findSession(tokenHash);
  if (!found) return null;
  const lastSeen = Date.parse(found.session.lastSeenAt);
  if (now >= Date.parse(found.session.expiresAt) || now - lastSeen >= limits.idleMs) {
    await storage.operators.deleteSession(tokenHash);
    return null;
  }
  if (now - lastSeen >= TOUCH_INTERVAL_MS) await storage.operators.touchSession(tokenHash, new Date(now).toISOString());
  return { operator: found.operator, token, record: found.session };
}
