/**
 * The agent key model shared by the app side and the cloud: the mint request,
 * the stored record, the public view, and the `agentId` rules.
 *
 * @module
 */
import { z } from "zod";
import { SvcError } from "../errors/mod.ts";
import { storedText } from "./limits.ts";
import { AGENT_KEY_PREFIX, hashSecret, KEY_START_LENGTH, mintSecret, unauthorized } from "./secrets.ts";
import { PLATFORM } from "../platform/mod.ts";

/** The inbox shared by every agent of a project, where the config allows it. */
export const SHARED_AGENT_ID = "default";

const AGENT_ID = /^agt_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Whether a key has expired at a time.
 *
 * @param key A key record (or the part of it a verification returns).
 * @param now The time, in milliseconds since the epoch.
 * @returns `true` when the key has an expiry at or before `now`.
 */
export function isExpired(key: { expiresAt?: string | null }, now: number): boolean {
  return key.expiresAt !== undefined && key.expiresAt !== null && Date.parse(key.expiresAt) <= now;
}

/**
 * Whether an agentId survives a URL path: `.` and `..` are dot segments, which
 * URL parsing rewrites (`/v1/agents/./inbox` is `/v1/agents/inbox`), so an inbox
 * of that name could never be read by tooling. Every other character is
 * reachable once the segment is percent-encoded.
 *
 * @param agentId The agentId.
 * @returns `false` for `.` and `..`.
 */
export function isPathSafeAgentId(agentId: string): boolean {
  return agentId !== "." && agentId !== "..";
}

const PATH_SAFE_MESSAGE = 'Must not be "." or "..": a URL path would rewrite it';

/** An agentId as sent: 1..200 characters, storable, and not a dot segment. */
export const agentIdText: z.ZodType<string> = storedText(1, 200).refine(isPathSafeAgentId, PATH_SAFE_MESSAGE);

/** A scope name: 1..100 characters. */
export const scopeName: z.ZodString = storedText(1, 100);

/** The longest lifetime a key may be given, in days (ten years): past it, a date is not a lifetime. */
export const MAX_KEY_LIFETIME_DAYS = 3650;

const lifetimeDays = z.int().min(1).max(MAX_KEY_LIFETIME_DAYS);

/**
 * A project's bounds of a key's lifetime (`keyLifetime` of `GET`/`PUT /v1/sdk/policy`), in days: `defaultDays`
 * for a key minted without a lifetime, `maxDays` the longest one may be given (absent or `null`: none).
 */
export const keyLifetimePolicySchema = z.strictObject({
  defaultDays: lifetimeDays.nullable().optional().describe("Days a key lives when its mint gives no lifetime"),
  maxDays: lifetimeDays.nullable().optional().describe("The most days a key may live"),
}).refine((p) => p.defaultDays == null || p.maxDays == null || p.defaultDays <= p.maxDays, {
  message: "defaultDays must not be above maxDays",
  path: ["defaultDays"],
});

/** A project's bounds of a key's lifetime. */
export type KeyLifetimePolicy = z.infer<typeof keyLifetimePolicySchema>;

/** The fields of `POST /svc/keys`, for the shapes built on them (without the check that ties two of them). */
export const mintKeyFields = z.object({
  name: storedText(1, 100),
  scopes: z.array(scopeName).max(100),
  agentId: agentIdText.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional().describe("When the key stops working (ISO 8601, future)"),
  expiresInDays: z.number().int().positive().max(MAX_KEY_LIFETIME_DAYS).optional()
    .describe("The key's lifetime in days, from now"),
});

/**
 * Refuses a mint body that gives both `expiresAt` and `expiresInDays`.
 *
 * @param body The parsed fields.
 * @returns Whether at most one of the two is given.
 */
export function oneLifetime(body: { expiresAt?: string; expiresInDays?: number }): boolean {
  return body.expiresAt === undefined || body.expiresInDays === undefined;
}

/** What {@linkcode oneLifetime} says when both are given. */
export const ONE_LIFETIME = { message: "Give expiresAt or expiresInDays, not both", path: ["expiresInDays"] };

/** The body of `POST /svc/keys`: `expiresAt` or `expiresInDays`, not both (the app's or project's bounds apply). */
export const mintKeyBody = mintKeyFields.refine(oneLifetime, ONE_LIFETIME);

/** What a mint request asks for, once validated. */
export type MintKeyRequest = z.infer<typeof mintKeyBody>;

/** A stored agent key. The plaintext is never part of it. */
export interface KeyRecord {
  /** UUID v4. */
  id: string;
  /** The owner. */
  userId: string;
  /** Display name. */
  name: string;
  /** Scopes held. */
  scopes: string[];
  /** The inbox this key reads. */
  agentId: string;
  /** SHA-256 of the plaintext, hex. */
  hash: string;
  /** The first 12 characters of the plaintext, for recognition. */
  start: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or `null` when never used. */
  lastUsedAt: string | null;
  /** ISO 8601, or `null` while active. */
  revokedAt: string | null;
  /** ISO 8601 after which the key is refused like a revoked one; `null` or absent: never. */
  expiresAt?: string | null;
  /** ISO 8601 at which the key's scheduled revocation takes effect (a reroll's grace end); `null` or absent: none. */
  revokesAt?: string | null;
  /**
   * The OAuth grant whose access token this key is (its keys share one rate bucket, and revoking any of them ends
   * the grant); `null` or absent: a key minted by hand. Never listed.
   */
  grantId?: string | null;
}

/** A key as listed to its owner. */
export type PublicKey = Omit<KeyRecord, "userId" | "hash" | "grantId">;

/** A freshly minted key: its record and the plaintext, which exists only in the mint response. */
export interface MintedKey {
  /** What is stored. */
  record: KeyRecord;
  /** The `svc_live_…` plaintext. */
  key: string;
}

/**
 * Mints a key for a user. The caller stores `record` and returns `key` once.
 *
 * @param userId The owner.
 * @param request Name, scopes, the agentId (already checked with {@linkcode checkAgentId}) and the expiry, if any.
 * @param now When it is minted, in milliseconds since the epoch (its `createdAt`). Default now.
 * @returns The record and the plaintext.
 */
export async function mintAgentKey(
  userId: string,
  request: { name: string; scopes: string[]; agentId: string; expiresAt?: string | null },
  now: number = PLATFORM.now(),
): Promise<MintedKey> {
  const key = mintSecret(AGENT_KEY_PREFIX);
  return {
    key,
    record: {
      id: PLATFORM.randomUUID(),
      userId,
      name: request.name,
      scopes: [...new Set(request.scopes)],
      agentId: request.agentId,
      hash: await hashSecret(key),
      start: key.slice(0, KEY_START_LENGTH),
      createdAt: new Date(now).toISOString(),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: request.expiresAt ?? null,
      revokesAt: null,
    },
  };
}

/**
 * The listed form of a key.
 *
 * @param record The stored record.
 * @returns Everything but the owner and the hash.
 */
export function publicKey(record: KeyRecord): PublicKey {
  const { id, name, scopes, agentId, createdAt, lastUsedAt, revokedAt, start } = record;
  const expiresAt = record.expiresAt ?? null;
  return {
    id,
    name,
    scopes,
    agentId,
    createdAt,
    lastUsedAt,
    revokedAt,
    expiresAt,
    revokesAt: record.revokesAt ?? null,
    start,
  };
}

/**
 * Whether a key's scheduled revocation (a reroll's grace end) has come at a time.
 *
 * @param key A key record (or the part of it a verification returns).
 * @param now The time, in milliseconds since the epoch.
 * @returns `true` when the key is not revoked yet and its revocation is scheduled at or before `now`.
 */
export function isRevocationDue(key: { revokedAt: string | null; revokesAt?: string | null }, now: number): boolean {
  return key.revokedAt === null && key.revokesAt !== undefined && key.revokesAt !== null &&
    Date.parse(key.revokesAt) <= now;
}

/**
 * A key as it stands at a time: a scheduled revocation whose time has come reads as the revocation.
 *
 * @example A rerolled key after its grace
 * ```ts
 * import { keyAt } from "./agent_keys.ts";
 *
 * const key = keyAt({ revokedAt: null, revokesAt: "2026-01-01T00:00:00.000Z" }, Date.parse("2026-02-01"));
 * console.log(key.revokedAt); // 2026-01-01T00:00:00.000Z
 * ```
 *
 * @param key A key record (or the part of it a verification returns).
 * @param now The time, in milliseconds since the epoch.
 * @returns The key itself, or a copy revoked at its scheduled time.
 */
export function keyAt<K extends { revokedAt: string | null; revokesAt?: string | null }>(key: K, now: number): K {
  return isRevocationDue(key, now) ? { ...key, revokedAt: key.revokesAt as string } : key;
}

/** Why a key that exists no longer works: the `details.reason` of its `401`. */
export type KeyRefusalReason = "revoked" | "expired" | "rerolled";

/** Why a key no longer works, and since when (ISO 8601): the `details` of its `401`. */
export interface KeyRefusal {
  /** `revoked`, `expired`, or `rerolled` (the grace of a reroll is over). */
  reason: KeyRefusalReason;
  /** When it stopped working. */
  at: string;
}

/**
 * Why a key that exists no longer works at a time, or `null` while it works. A revocation at or after its scheduled
 * time (a reroll's grace end) is the reroll's; one before it, or without one, is a revocation; an expiry counts only
 * while the key is not revoked.
 *
 * @example A rerolled key after its grace
 * ```ts
 * import { keyRefusal } from "./agent_keys.ts";
 *
 * const key = { revokedAt: null, revokesAt: "2026-01-01T00:00:00.000Z", expiresAt: null };
 * console.log(keyRefusal(key, Date.parse("2026-02-01"))); // { reason: "rerolled", at: "2026-01-01T00:00:00.000Z" }
 * ```
 *
 * @param key A key record (or the part of it a verification returns).
 * @param now The time, in milliseconds since the epoch.
 * @returns The reason and its time, or `null`.
 */
export function keyRefusal(
  key: { revokedAt: string | null; revokesAt?: string | null; expiresAt?: string | null },
  now: number,
): KeyRefusal | null {
  const { revokedAt, revokesAt } = keyAt(key, now);
  if (revokedAt !== null) {
    const rerolled = typeof revokesAt === "string" && Date.parse(revokedAt) >= Date.parse(revokesAt);
    return { reason: rerolled ? "rerolled" : "revoked", at: revokedAt };
  }
  return isExpired(key, now) ? { reason: "expired", at: key.expiresAt as string } : null;
}

const REFUSAL_MESSAGES: Record<KeyRefusalReason, string> = {
  revoked: "This agent key was revoked: ask for a new key",
  expired: "This agent key has expired: ask for a new key",
  rerolled: "This agent key was replaced by a reroll and its grace is over: use the new key",
};

/**
 * The `401 UNAUTHORIZED` of a key that exists but no longer works, with `details: { reason, at }`. Told only to
 * whoever presents the key itself: an unknown key gets no reason.
 *
 * @example An expired key
 * ```ts
 * import { keyNoLongerWorks } from "./agent_keys.ts";
 *
 * const error = keyNoLongerWorks({ reason: "expired", at: "2026-01-01T00:00:00.000Z" });
 * console.log(error.status, error.details); // 401 { reason: "expired", at: "2026-01-01T00:00:00.000Z" }
 * ```
 *
 * @param refusal Why, and since when.
 * @returns The error to throw.
 */
export function keyNoLongerWorks(refusal: KeyRefusal): SvcError {
  const error = unauthorized(REFUSAL_MESSAGES[refusal.reason]);
  return new SvcError("UNAUTHORIZED", error.message, {
    headers: error.headers,
    details: { reason: refusal.reason, at: refusal.at },
  });
}

/** How an `agentId` asked for at minting is to be treated. */
export type AgentIdKind = "user" | "shared" | "claim";

/**
 * Checks the form of an `agentId` asked for at minting: the user's own id, an
 * `agt_<uuid>` (which the store must then claim for this user), or `default`
 * where a shared inbox is allowed.
 *
 * @param userId The minting user.
 * @param agentId The requested agentId, or undefined for the user's own.
 * @param allowShared Whether `default` is allowed.
 * @returns The agentId and what the store must do with it.
 * @throws {SvcError} `VALIDATION_ERROR` for any other value.
 */
export function checkAgentId(
  userId: string,
  agentId: string | undefined,
  allowShared: boolean,
): { agentId: string; kind: AgentIdKind } {
  if (!isPathSafeAgentId(agentId ?? userId)) {
    // The user's own id is the default agentId: a user id of "." or ".." needs an agt_ id instead.
    throw new SvcError("VALIDATION_ERROR", "Invalid request", {
      details: { issues: [{ path: "agentId", message: PATH_SAFE_MESSAGE }] },
    });
  }
  if (agentId === undefined || agentId === userId) return { agentId: userId, kind: "user" };
  if (agentId === SHARED_AGENT_ID && allowShared) return { agentId, kind: "shared" };
  if (AGENT_ID.test(agentId)) return { agentId, kind: "claim" };
  throw agentIdTaken(agentId);
}

/**
 * The error for an agentId the user may not use.
 *
 * @param agentId The refused agentId.
 * @returns A `VALIDATION_ERROR` pointing at `agentId`.
 */
export function agentIdTaken(agentId: string): SvcError {
  return new SvcError("VALIDATION_ERROR", "agentId is not available to this user", {
    details: {
      issues: [{
        path: "agentId",
        message: `"${agentId.slice(0, 60)}" must be your user id, an unclaimed or own agt_<uuid>` +
          (agentId === SHARED_AGENT_ID ? ", and the shared inbox is not enabled" : ""),
      }],
    },
  });
}
