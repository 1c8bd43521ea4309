/**
 * Keys kept by the cloud (cloud mode): minting, listing, revoking and verifying
 * go through `/v1/sdk/keys`. A verification is cached for a few seconds, keyed
 * by the key's hash (never its plaintext), in a bounded map; a revoke made
 * through this app, or one the revocation feed brings, drops the entry at once.
 * A verification still in flight when a revoke starts is never cached, and
 * answers the key as revoked when the revoke was of that key. A key the cloud
 * refused is remembered (by hash, bounded, for the same few seconds: an unknown
 * or revoked key never becomes valid), so an agent repeating a refused key costs
 * the cloud one verification per few seconds, not one per request. An
 * unreachable cloud fails closed.
 *
 * @module
 */
import { BoundedMap } from "../cache/mod.ts";
import { isSvcError } from "../errors/mod.ts";
import type { CloudClient } from "./cloud_client.ts";
import { checkAgentId, keyAt } from "../contract/mod.ts";
import type { KeyRequest, KeyService, MintResult, RerollRequest, VerifiedKey } from "../keys/mod.ts";
import { hashSecret, KEY_START_LENGTH } from "../contract/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Options of {@linkcode cloudKeys}. */
export interface CloudKeysOptions {
  /** Whether agentId `default` may be minted. */
  sharedInbox: boolean;
  /** How long a verification (or a refusal) is trusted, in milliseconds. Default 2000. */
  cacheTtlMs?: number;
  /** Most verifications kept, and most refusals. Default 10000. */
  cacheMax?: number;
  /** Milliseconds since the epoch. Default `Date.now` (tests inject one). */
  now?: () => number;
}

/** Keys in the cloud, and how the revocation feed reaches their cache. */
export interface CloudKeyService extends KeyService {
  /** Forgets a revoked key's cached verification, and refuses it in verifications still in flight. */
  dropRevoked(keyId: string, revokedAt: string): void;
}

/** A key the cloud minted, as the key routes answer it (`expiresAt` as asked: the listing tells the rest). */
function minted(answer: Awaited<ReturnType<CloudClient["mintKey"]>>, asked: string | undefined): MintResult {
  const { id, name, scopes, agentId, createdAt } = answer;
  const expiresAt = asked ?? null;
  const start = answer.key.slice(0, KEY_START_LENGTH);
  const key = {
    id,
    name,
    scopes,
    agentId,
    createdAt,
    lastUsedAt: null,
    revokedAt: null,
    expiresAt,
    revokesAt: null,
    start,
  };
  return { key, secret: answer.key };
}

/** How long a revoke is remembered for verifications in flight: longer than any verify request. */
const IN_FLIGHT_MEMORY_MS = 60_000;

/**
 * Keys in the cloud.
 *
 * @param cloud The cloud client.
 * @param options Shared inbox and cache bounds.
 * @returns The key service.
 */
export function cloudKeys(cloud: CloudClient, options: CloudKeysOptions): CloudKeyService {
  const ttl = options.cacheTtlMs ?? 2000;
  const clock = options.now ?? PLATFORM.now;
  const max = options.cacheMax ?? 10_000;
  const hashById = new Map<string, string>();
  /** Verifications by hash, trusted for `ttl`; an evicted one leaves `hashById` with it. */
  const cache = new BoundedMap<string, VerifiedKey>({
    maxEntries: max,
    ttlMs: ttl,
    now: clock,
    onEvict: (hash, key) => {
      if (hashById.get(key.id) === hash) hashById.delete(key.id);
    },
  });
  /** Hashes the cloud refused, trusted for `ttl`. */
  const refused = new BoundedMap<string, true>({ maxEntries: max, ttlMs: ttl, now: clock });
  /** Bumped when a revoke starts and ends: a verification that saw it change is not cached. */
  let revokes = 0;
  /** Keys revoked lately, with when they were revoked and when that was learnt (oldest first). */
  const revokedLately = new BoundedMap<string, string>({ maxEntries: max, ttlMs: IN_FLIGHT_MEMORY_MS, now: clock });

  function dropRevoked(keyId: string, revokedAt: string): void {
    revokes++;
    const hash = hashById.get(keyId);
    if (hash !== undefined) cache.delete(hash);
    hashById.delete(keyId);
    revokedLately.set(keyId, revokedAt);
  }

  function remember(hash: string, key: VerifiedKey): void {
    cache.set(hash, key);
    hashById.set(key.id, hash);
  }

  return {
    async mint(userId: string, request: KeyRequest): Promise<MintResult> {
      const { agentId } = checkAgentId(userId, request.agentId, options.sharedInbox);
      const { name, scopes } = request;
      // No expiry asked: the project's default lifetime (its policy, at the cloud) applies.
      const expiresAt = request.expiresAt ?? undefined;
      const grant = request.grantId === undefined ? {} : { grantId: request.grantId };
      return minted(await cloud.mintKey(userId, { name, scopes, agentId, expiresAt, ...grant }), expiresAt);
    },
    async reroll(userId: string, id: string, request: RerollRequest): Promise<MintResult | null> {
      // The cloud keeps the key: it mints the successor and schedules the old key's revocation on its own clock. The
      // app's own bound for the successor goes with it (the cloud keeps the earlier of it and the project's).
      const old = (await cloud.listKeys(userId)).find((k) => k.id === id);
      if (old === undefined) return null;
      const expiresAt = request.expiresAt(old) ?? undefined;
      const rerolled = await cloud.rerollKey(userId, id, request.graceMinutes, expiresAt);
      return rerolled === null ? null : minted(rerolled, undefined);
    },
    async list(userId: string) {
      const now = clock();
      return (await cloud.listKeys(userId)).map((key) => keyAt(key, now));
    },
    async revoke(userId: string, id: string, reason: "app" | "oauth" = "app") {
      revokes++;
      try {
        // The cloud checks the owner (a key the listing no longer shows, such as one an OAuth grant replaced, too).
        const revoked = await cloud.revokeKey(id, reason, userId);
        dropRevoked(id, revoked.revokedAt);
        return revoked;
      } catch (error) {
        if (isSvcError(error) && error.code === "NOT_FOUND") return null;
        throw error;
      } finally {
        revokes++;
      }
    },
    async verifyKnown(secret: string): Promise<VerifiedKey | null | undefined> {
      const hash = await hashSecret(secret);
      const hit = cache.get(hash);
      if (hit !== undefined) return keyAt(hit, clock());
      return refused.has(hash) ? null : undefined;
    },
    async verify(secret: string): Promise<VerifiedKey | null> {
      const hash = await hashSecret(secret);
      const hit = cache.get(hash);
      if (hit !== undefined) return keyAt(hit, clock());
      if (refused.has(hash)) return null;
      const started = revokes;
      const found = await cloud.verifyKey(secret);
      if (found === null) {
        refused.set(hash, true);
        return null;
      }
      const revoked = revokedLately.peek(found.id);
      if (revoked !== undefined) return { ...found, revokedAt: revoked };
      const key: VerifiedKey = { ...found, expiresAt: found.expiresAt ?? null, revokedAt: null };
      if (revokes === started) remember(hash, key);
      // A cached key whose scheduled revocation (a reroll's grace end) has come reads as revoked.
      return keyAt(key, clock());
    },
    dropRevoked,
    close() {
      cache.clear();
      refused.clear();
      hashById.clear();
      revokedLately.clear();
      return Promise.resolve();
    },
  };
}
