/**
 * Mirroring when keys were last used (hybrid mode), so the cloud's key list and dashboard tell a live key
 * from a dead one: `POST /v1/sdk/keys/used { keys: [{ id, lastUsedAt }] }`, batched (up to 500 a request),
 * at most once a minute a key, a key's first use promptly. A failed send keeps the uses for the next try;
 * the latest use of a key wins; uses the cloud refuses for good (a 4xx) are dropped. Nothing here holds a request: uses are noted and sent in the background.
 *
 * @module
 */
import type { ErrorLogger } from "../logging/mod.ts";
import { type CloudClient, isTransient } from "./cloud_client.ts";
import { PLATFORM } from "../platform/mod.ts";

/** A key's use is sent at most once per this: one minute. */
export const LAST_USED_EVERY_MS = 60_000;
/** The most keys in one request. */
export const LAST_USED_BATCH = 500;
/** How long uses noted together are gathered before a prompt send, in milliseconds. */
const GATHER_MS = 50;
/** The delay before a failed send is tried again, in milliseconds. */
const RETRY_MS = 5_000;

/** Options of {@linkcode mirrorLastUsed}. */
export interface LastUsedOptions {
  /** The cloud. */
  cloud: CloudClient;
  /** Where a first failure is logged. */
  log: ErrorLogger;
  /** Milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The sender. */
export interface LastUsedMirror {
  /** Notes a key's use now. Never waits. */
  used(keyId: string): void;
  /** Sends what may be sent now; resolves when done. */
  flush(): Promise<void>;
  /** Stops; what waits is not sent. */
  close(): Promise<void>;
}

/**
 * Starts the sender.
 *
 * @param options The cloud, the logger and the clock.
 * @returns The sender.
 */
export function mirrorLastUsed(options: LastUsedOptions): LastUsedMirror {
  const { cloud, log } = options;
  const now = options.now ?? PLATFORM.now;
  /** The latest use of each key not sent yet. */
  const pending = new Map<string, number>();
  /** When each key's use was last sent (kept a minute). */
  const sentAt = new Map<string, number>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dueAt = Infinity;
  let sending: Promise<void> = Promise.resolve();
  let failing = false;
  let refusedLogged = false;
  let closed = false;

  function due(keyId: string): number {
    const sent = sentAt.get(keyId);
    return sent === undefined ? now() : sent + LAST_USED_EVERY_MS;
  }

  function schedule(at: number): void {
    if (closed || at >= dueAt) return;
    if (timer !== undefined) clearTimeout(timer);
    dueAt = at;
    timer = setTimeout(() => {
      timer = undefined;
      dueAt = Infinity;
      flush();
    }, Math.max(GATHER_MS, at - now()));
    (timer as { unref?: () => void }).unref?.();
  }

  async function sendDue(): Promise<void> {
    const t = now();
    for (const [id, at] of sentAt) if (t - at >= LAST_USED_EVERY_MS) sentAt.delete(id);
    const ready = [...pending].filter(([id]) => due(id) <= t).slice(0, LAST_USED_BATCH);
    if (ready.length > 0) {
      try {
        await cloud.keysUsed(ready.map(([id, at]) => ({ id, lastUsedAt: new Date(at).toISOString() })));
        failing = false;
        for (const [id, at] of ready) {
          sentAt.set(id, t);
          if (pending.get(id) === at) pending.delete(id);
        }
      } catch (error) {
        if (!isTransient(error)) {
          // Refused for good (a cloud without the route): these uses are dropped, later ones tried again.
          if (!refusedLogged) log("the cloud refused the keys' last use; such uses are dropped (logged once)", error);
          refusedLogged = true;
          for (const [id, at] of ready) if (pending.get(id) === at) pending.delete(id);
          return;
        }
        if (!failing) log("the keys' last use cannot be sent to the cloud; retrying in the background", error);
        failing = true;
        schedule(now() + RETRY_MS);
        return;
      }
    }
    let next = Infinity;
    for (const id of pending.keys()) next = Math.min(next, due(id));
    if (next !== Infinity) schedule(next);
  }

  function flush(): Promise<void> {
    sending = sending.then(sendDue);
    return sending;
  }

  return {
    used(keyId) {
      if (closed) return;
      pending.set(keyId, now());
      schedule(due(keyId));
    },
    flush,
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await sending;
    },
  };
}
