/**
 * In-process wake-ups for long polls: a poller subscribes to its inbox before
 * it reads, and an emit in this process wakes it at once. No database
 * connection is held while waiting; other processes' events are found by the
 * poller's periodic re-check.
 *
 * @module
 */

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

/** The wake-up registry of one cloud instance. */
export interface InboxWaiters {
  /** Starts listening to an inbox. */
  subscribe(projectId: string, agentId: string): InboxSubscription;
  /** Wakes every subscriber of an inbox. */
  notify(projectId: string, agentId: string): void;
  /** Wakes everyone and refuses to wait from now on. */
  close(): void;
  /** How many subscriptions are open (for tests and metrics). */
  readonly size: number;
}

/**
 * Creates an empty registry.
 *
 * @returns The registry.
 */
export function createInboxWaiters(): InboxWaiters {
  const byInbox = new Map<string, Set<Subscriber>>();
  let open = 0;
  let closed = false;

  interface Subscriber {
    notified: boolean;
    wake?: () => void;
  }

  return {
    subscribe(projectId, agentId) {
      const key = inboxKey(projectId, agentId);
      const subscriber: Subscriber = { notified: closed };
      let set = byInbox.get(key);
      if (set === undefined) byInbox.set(key, set = new Set());
      set.add(subscriber);
      open++;
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
              clearTimeout(timer);
              signal?.removeEventListener("abort", done);
              subscriber.wake = undefined;
              resolve();
            };
            const timer = setTimeout(done, ms);
            signal?.addEventListener("abort", done, { once: true });
            subscriber.wake = done;
          });
        },
        cancel,
      };
    },
    notify(projectId, agentId) {
      for (const subscriber of byInbox.get(inboxKey(projectId, agentId)) ?? []) {
        subscriber.notified = true;
        subscriber.wake?.();
      }
    },
    close() {
      closed = true;
      for (const set of byInbox.values()) {
        for (const subscriber of set) {
          subscriber.notified = true;
          subscriber.wake?.();
        }
      }
    },
    get size() {
      return open;
    },
  };
}

function inboxKey(projectId: string, agentId: string): string {
  return `${projectId}\u0000${agentId}`;
}
