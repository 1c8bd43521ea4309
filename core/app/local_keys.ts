/**
 * Keys kept in the app's own storage (local and hybrid modes). `lastUsedAt` is
 * kept to the minute without a write per request: uses are batched and a key
 * whose stored time is recent is not written again.
 *
 * A key's identity (id, owner, name, scopes, agentId) never changes after it
 * is minted, so it is cached in process, keyed by hash and bounded. Its
 * revocation can change from any process sharing the database, so every
 * verification still reads it: one narrow row lookup by hash.
 *
 * @module
 */
import {
  agentIdTaken,
  checkAgentId,
  type KeyRecord,
  mintAgentKey,
  type MintKeyRequest,
  publicKey,
} from "../contract/agent_keys.ts";
import type { KeyService, MintResult, VerifiedKey } from "./key_service.ts";
import { hashSecret, timingSafeEqual } from "../contract/secrets.ts";
import type { AppStorage } from "./app_storage.ts";
import type { ErrorLogger } from "../http/json.ts";

/** `lastUsedAt` is exact to this many milliseconds. */
export const LAST_USED_PRECISION_MS = 60_000;
const FLUSH_DELAY_MS = 1_000;
/** How many key identities are cached, at most. */
const CACHE_SIZE = 10_000;

/** Options of {@linkcode localKeys}. */
export interface LocalKeysOptions {
  /** Whether agentId `default` (one shared inbox) may be minted. */
  sharedInbox: boolean;
  /** Where write failures of `lastUsedAt` are logged. */
  log: ErrorLogger;
  /** Queue each stored or revoked key for the cloud, in the same write (hybrid mode). */
  mirror?: boolean;
  /** Called after a write that queued something for the cloud. */
  onQueued?: () => void;
}

/**
 * Keys in the app's storage.
 *
 * @param storage The app storage.
 * @param options Shared inbox, logger and change hook.
 * @returns The key service.
 */
export function localKeys(storage: AppStorage, options: LocalKeysOptions): KeyService {
  const pending = new Map<string, string>();
  const identities = new Map<string, KeyRecord>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let flushing: Promise<void> = Promise.resolve();

  function flush(): Promise<void> {
    timer = undefined;
    if (pending.size === 0) return flushing;
    const batch = new Map(pending);
    pending.clear();
    flushing = flushing.then(() => storage.touchKeys(batch)).catch((e) => options.log("lastUsedAt write failed", e));
    return flushing;
  }

  function noteUse(record: KeyRecord): void {
    const now = Date.now();
    if (record.lastUsedAt !== null && now - Date.parse(record.lastUsedAt) < LAST_USED_PRECISION_MS) return;
    if (pending.has(record.id)) return;
    record.lastUsedAt = new Date(now).toISOString();
    pending.set(record.id, record.lastUsedAt);
    timer ??= setTimeout(flush, FLUSH_DELAY_MS);
  }

  return {
    async mint(userId: string, request: MintKeyRequest): Promise<MintResult> {
      const { agentId, kind } = checkAgentId(userId, request.agentId, options.sharedInbox);
      const { record, key } = await mintAgentKey(userId, { ...request, agentId });
      if (!await storage.insertKey(record, kind, { mirror: options.mirror })) throw agentIdTaken(agentId);
      if (options.mirror) options.onQueued?.();
      return { key: publicKey(record), secret: key };
    },
    async list(userId: string) {
      return (await storage.listKeys(userId)).map(publicKey);
    },
    async revoke(userId: string, id: string) {
      const record = await storage.revokeKey(userId, id, new Date().toISOString(), { mirror: options.mirror });
      if (record === null) return null;
      if (options.mirror) options.onQueued?.();
      return { id: record.id, revokedAt: record.revokedAt as string };
    },
    async verify(secret: string): Promise<VerifiedKey | null> {
      const hash = await hashSecret(secret);
      const state = await storage.keyRevocationByHash(hash);
      if (state === null) return null;
      let record = identities.get(hash);
      if (record === undefined) {
        const found = await storage.findKeyByHash(hash);
        if (found === null || !timingSafeEqual(found.hash, hash)) return null;
        record = found;
        if (identities.size >= CACHE_SIZE) identities.delete(identities.keys().next().value!);
        identities.set(hash, record);
      }
      if (state.revokedAt !== null) return { ...record, revokedAt: state.revokedAt };
      noteUse(record);
      return record;
    },
    async close() {
      if (timer !== undefined) clearTimeout(timer);
      await flush();
    },
  };
}
