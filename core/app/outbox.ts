/**
 * The durable outbox of hybrid and cloud modes: key records and violations are
 * queued in the app's storage in the same write that stores them, and sent to
 * the cloud strictly in order (so a revoke is never overtaken), retrying with
 * backoff while the cloud is down. Items survive a restart of the app.
 *
 * @module
 */
import { type CloudClient, isTransient } from "./cloud_client.ts";
import type { ErrorLogger } from "../http/json.ts";
import type { AppStorage, OutboxItem } from "./app_storage.ts";
import { backoffDelay } from "../http/backoff.ts";

/** Options of {@linkcode createOutbox}. */
export interface OutboxOptions {
  /** Where items are queued. */
  storage: AppStorage;
  /** Where they go. */
  cloud: CloudClient;
  /** Where failures are logged. */
  log: ErrorLogger;
  /** First retry delay in milliseconds. Default 500. */
  retryMinMs?: number;
  /** Longest retry delay in milliseconds. Default 30000. */
  retryMaxMs?: number;
}

/** The outbox's controls. */
export interface Outbox {
  /** Sends what is queued, unless a retry is already scheduled. */
  kick(): void;
  /** Sends what is queued now, ignoring any backoff; resolves with how many items still wait. */
  sync(): Promise<number>;
  /** Stops sending; queued items stay in storage for the next start. */
  close(): Promise<void>;
}

const BATCH = 50;

/**
 * Starts an outbox and sends what an earlier run left in it.
 *
 * @param options Storage, cloud, logger and retry delays.
 * @returns The outbox.
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { storage, cloud, log } = options;
  const min = options.retryMinMs ?? 500;
  const max = options.retryMaxMs ?? 30_000;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  async function send(item: OutboxItem): Promise<void> {
    if (item.kind === "key") {
      const record = await storage.findKeyById(item.ref);
      if (record !== null) await cloud.mirrorKey(record);
    } else {
      if (item.body !== null) await cloud.reportViolation(JSON.parse(item.body));
    }
  }

  /** Sends items in order until the queue is empty or an item fails; `true` when empty. */
  async function drainOnce(): Promise<boolean> {
    for (;;) {
      const items = await storage.outboxHead(BATCH);
      if (items.length === 0) return true;
      for (const item of items) {
        if (closed) return false;
        try {
          await send(item);
        } catch (error) {
          if (isTransient(error)) {
            await storage.outboxFailed(item.seq);
            if (item.attempts === 0) log("cloud sync paused; retrying in the background", error);
            return false;
          }
          log(`the cloud refused a queued ${item.kind}; it is dropped`, error);
        }
        await storage.outboxDone(item.seq);
      }
    }
  }

  function run(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        let empty = false;
        try {
          empty = await drainOnce();
        } catch (error) {
          log("the outbox could not be read", error);
        }
        if (empty) failures = 0;
        else if (!closed) {
          timer = setTimeout(() => {
            timer = undefined;
            run();
          }, backoffDelay(failures++, min, max));
          again = false;
        }
      } while (again && !closed);
    })().finally(() => {
      running = undefined;
    });
    return running;
  }

  run();
  return {
    kick() {
      if (timer === undefined && !closed) run();
    },
    async sync() {
      if (timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
      await running;
      await run();
      return await storage.outboxSize();
    },
    async close() {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}
