/**
 * A key's lifetime at minting: what the request asks (`expiresAt` or `expiresInDays`), bounded by the app's config
 * (`keys: { defaultLifetimeDays, maxLifetimeDays }`) and the project's policy (`keyLifetime: { defaultDays,
 * maxDays }`), the same rule on both sides.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";

/** A default and a maximum lifetime, in days; absent: none (keys never expire unless asked to). */
export interface KeyLifetime {
  /** The lifetime of a key minted without one. */
  defaultDays?: number | null;
  /** The longest lifetime a key may be given; a key with none is given this one. */
  maxDays?: number | null;
}

/** What a mint asks of a key's lifetime. */
export interface LifetimeRequest {
  /** ISO 8601, in the future. */
  expiresAt?: string | null;
  /** Days from now, a positive integer. */
  expiresInDays?: number;
}

const DAY_MS = 86_400_000;

/**
 * Joins bounds: the shortest maximum, and the first default given (never past that maximum).
 *
 * @example The app's config and the project's policy
 * ```ts
 * import { joinLifetimes } from "./key_lifetime.ts";
 *
 * console.log(joinLifetimes({ defaultDays: 30 }, { maxDays: 7 })); // { defaultDays: 7, maxDays: 7 }
 * ```
 *
 * @param bounds The bounds, in order of precedence for the default.
 * @returns One bound.
 */
export function joinLifetimes(...bounds: readonly (KeyLifetime | null | undefined)[]): KeyLifetime {
  const maxes = bounds.map((b) => b?.maxDays).filter((d): d is number => typeof d === "number");
  const maxDays = maxes.length ? Math.min(...maxes) : null;
  const first = bounds.map((b) => b?.defaultDays).find((d): d is number => typeof d === "number");
  const defaultDays = first === undefined ? null : maxDays === null ? first : Math.min(first, maxDays);
  return { defaultDays, maxDays };
}

/**
 * The expiry of a key about to be minted.
 *
 * @example Thirty days from now, under a maximum of 90
 * ```ts
 * import { keyExpiry } from "./key_lifetime.ts";
 *
 * const at = keyExpiry({ expiresInDays: 30 }, { maxDays: 90 }, Date.parse("2026-01-01T00:00:00Z"));
 * console.log(at); // 2026-01-31T00:00:00.000Z
 * ```
 *
 * @param request `expiresAt` or `expiresInDays` (at most one), or neither.
 * @param bounds The default and the maximum.
 * @param now Milliseconds since the epoch.
 * @returns ISO 8601, or `null` (never) when nothing asks for an expiry.
 * @throws {SvcError} `VALIDATION_ERROR` for an expiry not in the future or past the maximum (which it names).
 */
export function keyExpiry(request: LifetimeRequest, bounds: KeyLifetime, now: number): string | null {
  const max = bounds.maxDays ?? null;
  let at: number;
  let path: string;
  if (request.expiresAt !== undefined && request.expiresAt !== null) {
    at = Date.parse(request.expiresAt);
    path = "expiresAt";
    if (!(at > now)) throw lifetimeRefused(path, "Must be in the future");
  } else if (request.expiresInDays !== undefined) {
    at = now + request.expiresInDays * DAY_MS;
    path = "expiresInDays";
  } else {
    const days = bounds.defaultDays ?? max;
    return days === null ? null : new Date(now + days * DAY_MS).toISOString();
  }
  if (max !== null && at > now + max * DAY_MS) {
    throw lifetimeRefused(path, `The longest lifetime a key may be given here is ${max} days`);
  }
  return new Date(at).toISOString();
}

/**
 * The expiry of a rerolled key's successor: the old key's lifetime again from now (within the bounds' maximum), or
 * the bounds' default for a key that never expired.
 *
 * @example A 30-day key rerolled
 * ```ts
 * import { successorExpiry } from "./key_lifetime.ts";
 *
 * const old = { createdAt: "2026-01-01T00:00:00.000Z", expiresAt: "2026-01-31T00:00:00.000Z" };
 * console.log(successorExpiry(old, {}, Date.parse("2026-01-20T00:00:00Z"))); // 2026-02-19T00:00:00.000Z
 * ```
 *
 * @param old The key rerolled.
 * @param bounds The default and the maximum.
 * @param now Milliseconds since the epoch.
 * @returns ISO 8601, or `null`: never.
 */
export function successorExpiry(
  old: { createdAt: string; expiresAt?: string | null },
  bounds: KeyLifetime,
  now: number,
): string | null {
  if (old.expiresAt === null || old.expiresAt === undefined) return keyExpiry({}, bounds, now);
  const lifetime = Math.max(Date.parse(old.expiresAt) - Date.parse(old.createdAt), 0);
  const max = bounds.maxDays === null || bounds.maxDays === undefined ? Infinity : bounds.maxDays * DAY_MS;
  return new Date(now + Math.min(lifetime, max)).toISOString();
}

/**
 * The expiry a key minted elsewhere (a hybrid app's mirror) is held to: its own, or the bounds' maximum from its
 * creation (never later than `now`), whichever is earlier.
 *
 * @example A mirror that never expires, under a maximum of 30 days
 * ```ts
 * import { heldExpiry } from "./key_lifetime.ts";
 *
 * const record = { createdAt: "2026-01-01T00:00:00.000Z", expiresAt: null };
 * console.log(heldExpiry(record, { maxDays: 30 }, Date.parse("2026-01-02T00:00:00Z"))); // 2026-01-31T00:00:00.000Z
 * ```
 *
 * @param record The key's creation and its own expiry (ISO 8601; `null` or absent: never).
 * @param bounds The maximum (none: the key's own expiry stands).
 * @param now Milliseconds since the epoch.
 * @returns ISO 8601, or `null`: never.
 */
export function heldExpiry(
  record: { createdAt: string; expiresAt?: string | null },
  bounds: KeyLifetime,
  now: number,
): string | null {
  const own = record.expiresAt ?? null;
  if (bounds.maxDays === null || bounds.maxDays === undefined) return own;
  const latest = Math.min(Date.parse(record.createdAt), now) + bounds.maxDays * DAY_MS;
  return own !== null && Date.parse(own) <= latest ? own : new Date(latest).toISOString();
}

function lifetimeRefused(path: string, message: string): SvcError {
  return new SvcError("VALIDATION_ERROR", "Invalid request", { details: { issues: [{ path, message }] } });
}
