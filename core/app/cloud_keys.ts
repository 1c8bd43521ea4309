/**
 * Keys kept by the cloud (cloud mode): minting, listing, revoking and verifying
 * go through `/v1/sdk/keys`. A verification is cached for a few seconds, keyed
 * by the key's hash (never its plaintext), in a bounded map; a revoke made
 * through this app drops the entry at once. An unreachable cloud fails closed.
 *
 * @module
 */
import type { CloudClient } from "./cloud_client.ts";
import { checkAgentId, type MintKeyRequest } from "../contract/agent_keys.ts";
import type { KeyService, MintResult, VerifiedKey } from "./key_service.ts";
import { hashSecret, KEY_START_LENGTH } from "../contract/secrets.ts";

/** Options of {@linkcode cloudKeys}. */
export interface CloudKeysOptions {
  /** Whether agentId `default` may be minted. */
  sharedInbox: boolean;
  /** How long a verification is trusted, in milliseconds. Default 2000. */
  cacheTtlMs?: number;
  /** Most verifications kept. Default 10000. */
  cacheMax?: number;
}

/**
 * Keys in the cloud.
 *
 * @param cloud The cloud client.
 * @param options Shared inbox and cache bounds.
 * @returns The key service.
 */
export function cloudKeys(cloud: CloudClient, options: CloudKeysOptions): KeyService {
  const ttl = options.cacheTtlMs ?? 2000;
  const max = options.cacheMax ?? 10_000;
  const cache = new Map<string, { key: VerifiedKey; expires: number }>();
  const hashById = new Map<string, string>();

  function remember(hash: string, key: VerifiedKey): void {
    if (cache.size >= max) {
      const [oldest] = cache.keys();
      const evicted = cache.get(oldest);
      cache.delete(oldest);
      if (evicted) hashById.delete(evicted.key.id);
    }
    cache.set(hash, { key, expires: Date.now() + ttl });
    hashById.set(key.id, hash);
  }

  return {
    async mint(userId: string, request: MintKeyRequest): Promise<MintResult> {
      const { agentId } = checkAgentId(userId, request.agentId, options.sharedInbox);
      const minted = await cloud.mintKey(userId, { name: request.name, scopes: request.scopes, agentId });
      const { id, name, scopes, createdAt } = minted;
      return {
        key: {
          id,
          name,
          scopes,
          agentId: minted.agentId,
          createdAt,
          lastUsedAt: null,
          revokedAt: null,
          start: minted.key.slice(0, KEY_START_LENGTH),
        },
        secret: minted.key,
      };
    },
    list(userId: string) {
      return cloud.listKeys(userId);
    },
    async revoke(userId: string, id: string) {
      const owned = (await cloud.listKeys(userId)).some((k) => k.id === id);
      if (!owned) return null;
      const revoked = await cloud.revokeKey(id);
      const hash = hashById.get(id);
      if (hash !== undefined) cache.delete(hash);
      hashById.delete(id);
      return revoked;
    },
    async verify(secret: string): Promise<VerifiedKey | null> {
      const hash = await hashSecret(secret);
      const hit = cache.get(hash);
      if (hit !== undefined && hit.expires > Date.now()) return hit.key;
      if (hit !== undefined) cache.delete(hash);
      const found = await cloud.verifyKey(secret);
      if (found === null) return null;
      const key: VerifiedKey = { ...found, revokedAt: null };
      remember(hash, key);
      return key;
    },
    close() {
      cache.clear();
      hashById.clear();
      return Promise.resolve();
    },
  };
}
