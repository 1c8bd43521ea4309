/**
 * Signed-in sessions: a random token in an `HttpOnly`, `SameSite=Strict`
 * cookie (`Secure` behind https), stored only as its hash, ending after an idle
 * time, at an absolute limit, or at sign-out.
 *
 * @module
 */
import { hashSecret, mintSecret } from "../../core/contract/mod.ts";
import type { OperatorRecord, SessionRecord } from "./operator_storage.ts";
import type { AuditEntryInput } from "../audit/mod.ts";
import type { OperatorRepository } from "./operator_repository.ts";

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

/** The prefix of the cookies set over https: the browser keeps them only `Secure`, on `Path=/`, without `Domain`. */
export const HOST_PREFIX = "__Host-";

/**
 * The dashboard's cookies of a request, by their plain names. Over https only `__Host-` cookies are read (so a
 * cookie planted by a sibling host or over http is ignored); over plain http (local development) only plain ones.
 *
 * @param req The request.
 * @param secure Whether browsers reach the dashboard over https.
 * @returns Name to value.
 */
export function cookiesOf(req: Request, secure = false): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at <= 0) continue;
    const name = part.slice(0, at).trim();
    if (name.startsWith(HOST_PREFIX) !== secure) continue;
    cookies.set(secure ? name.slice(HOST_PREFIX.length) : name, part.slice(at + 1).trim());
  }
  return cookies;
}

/**
 * A `Set-Cookie` value for a dashboard cookie: over https a `__Host-` cookie (`Secure`, `Path=/`, no `Domain`),
 * over plain http (local development) a plain one on `Path=/dashboard`.
 *
 * @param name The cookie.
 * @param value Its value (empty with `maxAgeSeconds` 0 to clear it).
 * @param secure Whether to add `Secure` (browsers reach the dashboard over https).
 * @param maxAgeSeconds Lifetime; omitted for a browser-session cookie.
 * @returns The header value.
 */
export function cookie(name: string, value: string, secure: boolean, maxAgeSeconds?: number): string {
  const parts = secure
    ? [`${HOST_PREFIX}${name}=${value}`, "Path=/", "HttpOnly", "SameSite=Strict"]
    : [`${name}=${value}`, `Path=${COOKIE_PATH}`, "HttpOnly", "SameSite=Strict"];
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
 * @param audit The audit entry of the sign-in, appended in the session's own transaction.
 * @returns The token to put in the cookie.
 */
export async function openSession(
  storage: { operators: OperatorRepository },
  operator: OperatorRecord,
  address: string | null,
  now: number,
  limits: SessionLimits,
  audit?: AuditEntryInput,
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
  }, audit);
  return token;
}

/**
 * The request's live session, or `null`. An expired or idle session is deleted.
 *
 * @param storage The cloud's storage.
 * @param req The request.
 * @param now The time, in milliseconds.
 * @param limits Idle and absolute limits.
 * @param secure Whether browsers reach the dashboard over https (the cookie is then a `__Host-` one).
 * @returns The session, or `null`.
 */
export async function currentSession(
  storage: { operators: OperatorRepository },
  req: Request,
  now: number,
  limits: SessionLimits,
  secure = false,
): Promise<Session | null> {
  const token = cookiesOf(req, secure).get(SESSION_COOKIE);
  if (!token || !/^svco_[A-Za-z0-9]{40}$/.test(token)) return null;
  const tokenHash = await hashSecret(token);
  const found = await storage.operators.findSession(tokenHash);
  if (!found) return null;
  const lastSeen = Date.parse(found.session.lastSeenAt);
  if (now >= Date.parse(found.session.expiresAt) || now - lastSeen >= limits.idleMs) {
    await storage.operators.deleteSession(tokenHash);
    return null;
  }
  if (now - lastSeen >= TOUCH_INTERVAL_MS) {
    // Best-effort, like a key's last use: a full disk or a locked database must not keep an operator from reading
    // (the write that failed is logged by the next write that fails the same way, once a minute).
    await storage.operators.touchSession(tokenHash, new Date(now).toISOString()).catch(() => {});
  }
  return { operator: found.operator, token, record: found.session };
}
