/**
 * Wake-ups for long polls (the inboxes' and the revocation feed's). A poller subscribes to its inbox before it reads,
 * then waits without touching the database: an emit in this process wakes it
 * at once, and one shared watcher per node finds what other processes stored.
 * On a local file the watcher looks at `PRAGMA data_version` every
 * {@linkcode LOCAL_TICK_MS} (a few microseconds, and nothing at all while no
 * other connection commits) and runs one range read for all waiting polls only
 * when it changed; on a remote database it runs that read every re-check
 * interval. Idle polls thus cost no statement, whatever their number.
 *
 * The revocation feed's polls wait on the same registry (channel
 * {@linkcode REVOCATION_FEED}): the watcher's look also reads the newest
 * feed `seq` while any wait, and wakes them only when it grew.
 *
 * Concurrent polls are capped per key and per project; beyond the cap a poll
 * is refused with `429 RATE_LIMITED` and `Retry-After`.
 *
 * @module
 */
import { rateLimited } from "../../core/abuse/mod.ts";

/** How often the watcher looks at a local file's `data_version` while polls wait, in milliseconds. */
export const LOCAL_TICK_MS = 5;
/** Concurrent long polls one agent key may hold open. */
export const MAX_POLLS_PER_KEY = 20;
/** Concurrent long polls one project may hold open (agent keys and SDK tooling together). */
export const MAX_POLLS_PER_PROJECT = 5_000;

/** The channel of a project's revocation feed: an agentId can never be this (stored text holds no NUL). */
export const REVOCATION_FEED = "\u0000revocations";

/** A subscription to one inbox's wake-ups. */
export interface InboxSubscription {
  /**
   * Waits until the inbox is notified (or was, since subscribing), the time
   * runs out, the signal aborts, or the waiters close.
   */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  /** Stops listening. */
  cancel(): void;
}

/** The inboxes' changes the shared watcher reads (the inbox's repository has them). */
export interface InboxChanges {
  /**
   * The inboxes that received items after `inboxId` (by any process), and the newest inbox id:
   * one range read for every waiting poll of this node. Start with `inboxId` -1 to learn the newest id only.
   */
  inboxesFilledAfter(inboxId: number): Promise<{ latest: number; inboxes: { projectId: string; agentId: string }[] }>;
  /**
   * Changes when another connection may have committed (`PRAGMA data_version` on a local file; 0 for
   * `:memory:`); `null` when it cannot tell (remote), so callers look again on a timer.
   */
  dataVersion(): number | null;
}

/** What the shared watcher reads. */
export type WatchedStorage = InboxChanges & Partial<RevocationSequence>;

/** The revocation feed's newest sequence number (the keys' repository has it). */
export interface RevocationSequence {
  /** The highest feed `seq` of every project (0 when none). */
  latestRevocationSeq(): Promise<number>;
}

/**
 * What the shared watcher reads of the cloud's repositories: the inboxes' changes and the revocation feed's
 * newest sequence number (every caller of {@linkcode InboxWaiters.watch} passes this, so the first one wins
 * with both).
 *
 * @param storage The repositories.
 * @returns The watched reads.
 */
export function watchedStorage(storage: { inbox: InboxChanges; keys: RevocationSequence }): WatchedStorage {
  return {
    dataVersion: () => storage.inbox.dataVersion(),
    inboxesFilledAfter: (after) => storage.inbox.inboxesFilledAfter(after),
    latestRevocationSeq: () => storage.keys.latestRevocationSeq(),
  };
}

/** Options of {@linkcode createInboxWaiters}. */
export interface InboxWaitersOptions {
  /** Concurrent polls per key. Default {@linkcode MAX_POLLS_PER_KEY}. */
  maxPollsPerKey?: number;
  /** Concurrent polls per project. Default {@linkcode MAX_POLLS_PER_PROJECT}. */
  maxPollsPerProject?: number;
}

/** The wake-up registry of one cloud instance. */
export interface InboxWaiters {
  /** Starts listening to an inbox. */
  subscribe(projectId: string, agentId: string): InboxSubscription;
  /** Wakes every subscriber of an inbox. */
  notify(projectId: string, agentId: string): void;
  /**
   * Lets the shared watcher find events stored by other processes (the first call wins).
   *
   * @param storage The storage to watch.
   * @param recheckMs How often a remote database is read while polls wait.
   */
  watch(storage: WatchedStorage, recheckMs: number): void;
  /**
   * Counts a long poll against its key's and project's caps.
   *
   * @param projectId The project.
   * @param keyId The agent key, or `null` for SDK tooling.
   * @returns Releases the poll's place.
   * @throws {SvcError} `RATE_LIMITED` when a cap is reached.
   */
  admit(projectId: string, keyId: string | null): () => void;
  /** Wakes everyone and refuses to wait from now on. */
  close(): void;
  /** How many subscriptions are open (for tests and metrics). */
  readonly size: number;
  /** How many subscribers are inside `wait` right now: polls held open (for tests and metrics). */
  readonly waiting: number;
  /**
   * How many polls of one inbox are held open here right now: whether its agent is listening (the dashboard's
   * inbox page says so).
   *
   * @param projectId The project.
   * @param agentId The inbox's agentId.
   * @returns The polls of that inbox inside `wait` on this instance.
   */
  waitingIn(projectId: string, agentId: string): number;
}

interface Subscriber {
  notified: boolean;
  wake?: () => void;
}

/**
 * Creates an empty registry.
 *
 * @param options The poll caps.
 * @returns The registry.
 */
export function createInboxWaiters(options: InboxWaitersOptions = {}): InboxWaiters {
  const byInbox = new Map<string, Set<Subscriber>>();
  const polls = new Map<string, number>();
  const perKey = options.maxPollsPerKey ?? MAX_POLLS_PER_KEY;
  const perProject = options.maxPollsPerProject ?? MAX_POLLS_PER_PROJECT;
  let open = 0;
  let held = 0;
  let closed = false;
  let watched: { storage: WatchedStorage; recheckMs: number } | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** The newest inbox id the watcher has seen, once known. */
  let latest: number | undefined;
  let version: number | null | undefined;
  /** The newest revocation-feed seq the watcher has seen, once known. */
  let latestRevocation: number | undefined;

  function wakeInbox(key: string): void {
    for (const subscriber of byInbox.get(key) ?? []) {
      subscriber.notified = true;
      subscriber.wake?.();
    }
  }

  function schedule(): void {
    if (timer !== undefined || watched === undefined || open === 0 || closed) return;
    const local = watched.storage.dataVersion() !== null;
    timer = setTimeout(tick, local ? LOCAL_TICK_MS : watched.recheckMs);
  }

  async function tick(): Promise<void> {
    const { storage } = watched!;
    try {
      const current = storage.dataVersion();
      // Unchanged data_version: no other connection committed, and this process's emits notify directly.
      if (current !== null && current === version) return;
      version = current;
      const found = await storage.inboxesFilledAfter(latest ?? -1);
      if (latest === undefined) {
        // First look: anything may have arrived between a poll's read and now, so every poll reads once more.
        for (const key of byInbox.keys()) wakeInbox(key);
      }
      latest = found.latest;
      for (const inbox of found.inboxes) wakeInbox(inboxKey(inbox.projectId, inbox.agentId));
      await lookAtFeed(storage);
    } catch {
      // A failed look is retried on the next tick; the polls' own deadlines still hold.
      version = undefined;
    } finally {
      timer = undefined;
      schedule();
    }
  }

  /** Wakes the feed's polls when another process stored a revocation (one read for all of them). */
  async function lookAtFeed(storage: WatchedStorage): Promise<void> {
    const feeds = [...byInbox.keys()].filter((key) => key.endsWith(`\u0000${REVOCATION_FEED}`));
    if (feeds.length === 0 || storage.latestRevocationSeq === undefined) return;
    const seq = await storage.latestRevocationSeq();
    // First look, or a new revocation: every waiting feed poll reads once more.
    if (latestRevocation === undefined || seq !== latestRevocation) { for (const key of feeds) wakeInbox(key); }
    latestRevocation = seq;
  }

  function count(key: string, delta: number): void {
    const n = (polls.get(key) ?? 0) + delta;
    if (n === 0) polls.delete(key);
    else polls.set(key, n);
  }

  return {
    subscribe(projectId, agentId) {
      const key = inboxKey(projectId, agentId);
      const subscriber: Subscriber = { notified: closed };
      let set = byInbox.get(key);
      if (set === undefined) byInbox.set(key, set = new Set());
      set.add(subscriber);
      open++;
      schedule();
      let cancelled = false;
      const cancel = () => {
        if (cancelled) return;
        cancelled = true;
        open--;
        set.delete(subscriber);
        if (set.size === 0 && byInbox.get(key) === set) byInbox.delete(key);
        subscriber.wake?.();
      };
      return {
        wait(ms, signal) {
          if (subscriber.notified || cancelled || signal?.aborted) return Promise.resolve();
          return new Promise<void>((resolve) => {
            const done = () => {
              clearTimeout(deadline);
              signal?.removeEventListener("abort", done);
              subscriber.wake = undefined;
              held--;
              resolve();
            };
            const deadline = setTimeout(done, ms);
            signal?.addEventListener("abort", done, { once: true });
            subscriber.wake = done;
            held++;
          });
        },
        cancel,
      };
    },
    notify(projectId, agentId) {
      wakeInbox(inboxKey(projectId, agentId));
    },
    watch(storage, recheckMs) {
      watched ??= { storage, recheckMs };
      schedule();
    },
    admit(projectId, keyId) {
      const projectKey = `p\u0000${projectId}`;
      // Key ids are unique per project only.
      const keyKey = keyId === null ? undefined : `k\u0000${projectId}\u0000${keyId}`;
      if ((polls.get(projectKey) ?? 0) >= perProject || (keyKey && (polls.get(keyKey) ?? 0) >= perKey)) {
        throw rateLimited(1000);
      }
      count(projectKey, 1);
      if (keyKey) count(keyKey, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        count(projectKey, -1);
        if (keyKey) count(keyKey, -1);
      };
    },
    close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      for (const key of byInbox.keys()) wakeInbox(key);
    },
    get size() {
      return open;
    },
    get waiting() {
      return held;
    },
    waitingIn(projectId, agentId) {
      let n = 0;
      for (const subscriber of byInbox.get(inboxKey(projectId, agentId)) ?? []) if (subscriber.wake) n++;
      return n;
    },
  };
}

function inboxKey(projectId: string, agentId: string): string {
  return `${projectId}\u0000${agentId}`;
}
