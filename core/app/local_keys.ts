/**
 * Keys kept in the app's own storage (local and hybrid modes). `lastUsedAt` is
 * kept to the minute without a write per request: uses are batched and a key
 * whose stored time is recent is not written again.
 *
 * A verification is one lookup by hash, which the libSQL storage answers from
 * its in-process cache while the database has not changed under it (another
 * process's revoke shows through `PRAGMA data_version` on the next request;
 * a revoke in this process, its auto-revoke or a revocation from the cloud's
 * feed updates the cache itself; another node's revoke on a remote database,
 * which nothing signals, shows within 1 s, the contract's bound).
 *
 * @module
 */
import { keyAt, type KeyRecord, mintAgentKey, publicKey } from "../contract/mod.ts";
import {
  findKeyBySecret,
  type KeyRequest,
  type KeyService,
  mintKey,
  type MintResult,
  type RerollRequest,
  type VerifiedKey,
} from "../keys/mod.ts";
import type { AppStorage } from "./storage/mod.ts";
import type { ErrorLogger } from "../logging/mod.ts";
import { PLATFORM } from "../platform/mod.ts";

/** `lastUsedAt` is exact to this many milliseconds. */
export const LAST_USED_PRECISION_MS = 60_000;
const FLUSH_DELAY_MS = 1_000;

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
  /** The clock a scheduled revocation is checked against, in milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Called after a key was revoked here (its pending approvals are cancelled); a rejection is logged. */
  onRevoked?: (keyId: string) => Promise<void> | undefined;
}

/**
 * Keys in the app's storage.
 *
 * @param storage The app storage.
 * @param options Shared inbox, logger and change hook.
 * @returns The key service.
 */
export function localKeys(storage: AppStorage, options: LocalKeysOptions): KeyService {
  const clock = options.now ?? PLATFORM.now;
  const pending = new Map<string, string>();
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

  /** ISO 8601 of one precision interval ago, recomputed at most once a second (ISO strings compare as times). */
  let recent = "";
  let recentAt = 0;

  function noteUse(record: KeyRecord): void {
    const now = clock();
    if (now - recentAt >= 1000) {
      recentAt = now;
      recent = new Date(now - LAST_USED_PRECISION_MS).toISOString();
    }
    if (record.lastUsedAt !== null && record.lastUsedAt > recent) return;
    if (pending.has(record.id)) return;
    record.lastUsedAt = new Date(now).toISOString();
    pending.set(record.id, record.lastUsedAt);
    timer ??= setTimeout(flush, FLUSH_DELAY_MS);
  }

  return {
    async mint(userId: string, request: KeyRequest): Promise<MintResult> {
      const { key, secret } = await mintKey(userId, request, {
        sharedInbox: options.sharedInbox,
        store: (record, kind) => storage.insertKey(record, kind, { mirror: options.mirror }),
        now: clock(),
      });
      if (options.mirror) options.onQueued?.();
      return { key, secret };
    },
    async reroll(userId: string, id: string, request: RerollRequest): Promise<MintResult | null> {
      const old = await storage.findKeyById(id);
      if (old === null || old.userId !== userId) return null;
      // The old key's agentId is already this user's: its successor claims nothing new.
      const agentId = old.agentId;
      const expiresAt = request.expiresAt(publicKey(old));
      const at = clock();
      const { record, key } = await mintAgentKey(
        userId,
        { name: old.name, scopes: old.scopes, agentId, expiresAt },
        at,
      );
      const now = new Date(at).toISOString();
      const mirror = { mirror: options.mirror };
      if (!await storage.rerollKey(userId, id, record, request.revokesAt, now, mirror)) return null;
      if (options.mirror) options.onQueued?.();
      return { key: publicKey(record), secret: key };
    },
    async list(userId: string) {
      const now = clock();
      return (await storage.listKeys(userId)).map((record) => publicKey(keyAt(record, now)));
    },
    async revoke(userId: string, id: string, reason: "app" | "oauth" = "app") {
      const at = new Date(clock()).toISOString();
      const why = reason === "oauth" ? { reason } : {};
      const record = await storage.revokeKey(userId, id, at, { mirror: options.mirror, ...why });
      if (record === null) return null;
      if (options.mirror) options.onQueued?.();
      await options.onRevoked?.(record.id)?.catch((e) => options.log("approvals of a revoked key not cancelled", e));
      return { id: record.id, revokedAt: record.revokedAt as string };
    },
    async verify(secret: string): Promise<VerifiedKey | null> {
      const found = await findKeyBySecret(secret, (hash) => storage.findKeyByHash(hash));
      if (found === null) return null;
      // A reroll's grace that has ended reads as the revocation (written at the cloud when it is reached there).
      const record = keyAt(found, clock());
      if (record.revokedAt !== null) return { ...record };
      noteUse(record);
      return record;
    },
    async close() {
      if (timer !== undefined) clearTimeout(timer);
      await flush();
    },
  };
}
