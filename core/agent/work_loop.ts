/**
 * `AgentClient.work()`: the inbox as a queue. Polls with leases, runs up to `concurrency` handlers at once, extends
 * the lease of a handler that runs long (every half lease), releases an item with a growing delay when its handler
 * throws, and acknowledges it when the handler returns. Another worker of the same agent (another process, another
 * machine) never gets an item while this one holds its lease.
 *
 * @module
 */
import { isSvcError, SvcError } from "../errors/mod.ts";
import { Backoff } from "../retry/mod.ts";
import type { InboxItem } from "../contract/mod.ts";
import type { WorkOptions, WorkSummary } from "./agent_client_options.ts";

/** The longest reason a release records (the cloud's bound). */
const MAX_REASON = 200;

/** What the loop calls of the client. */
export interface LeaseCalls {
  /** `GET /v1/agent/inbox?lease=`. */
  lease(options: { lease: number; limit: number; wait: number; signal?: AbortSignal }): Promise<InboxItem[]>;
  /** `POST /v1/agent/leases/extend`. */
  extend(leaseIds: string[], seconds: number): Promise<unknown>;
  /** `POST /v1/agent/leases/release`. */
  release(leaseIds: string[], delaySeconds: number, reason: string): Promise<unknown>;
  /** `POST /v1/agent/ack` by lease ids. */
  ackLeases(leaseIds: string[]): Promise<unknown>;
}

/**
 * The delay before a failed item is handed out again: 1 s after its first delivery, doubling, at most 5 minutes.
 *
 * @param deliveries The item's deliveries so far.
 * @returns Seconds.
 */
export function retryDelaySeconds(deliveries: number): number {
  return Math.min(2 ** Math.max(0, deliveries - 1), 300);
}

/**
 * Runs the loop until `signal` aborts (then waits for the handlers running) or, with `untilEmpty`, the inbox has
 * nothing free and no handler runs.
 *
 * @param calls The client's lease calls.
 * @param options The handler, the lease, the concurrency, the signal.
 * @returns How many items were acknowledged and how many released after a throw.
 * @throws {SvcError} A poll refused for good (401, 400): after the handlers running have finished.
 */
export async function workLoop(calls: LeaseCalls, options: WorkOptions): Promise<WorkSummary> {
  const {
    handler,
    signal,
    leaseSeconds = 30,
    concurrency = 1,
    wait = 20,
    untilEmpty = false,
    retryDelay = retryDelaySeconds,
    retryMinMs = 250,
    retryMaxMs = 30_000,
  } = options;
  if (!Number.isInteger(leaseSeconds) || leaseSeconds < 1 || leaseSeconds > 43_200) {
    throw new SvcError("VALIDATION_ERROR", "leaseSeconds must be an integer from 1 to 43200");
  }
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 200) {
    throw new SvcError("VALIDATION_ERROR", "concurrency must be an integer from 1 to 200");
  }
  const summary: WorkSummary = { acknowledged: 0, released: 0 };
  const running = new Set<Promise<void>>();
  const failures = new Backoff({ minMs: retryMinMs, maxMs: retryMaxMs });

  const handle = async (item: InboxItem) => {
    const leaseId = item.leaseId!;
    // Half a lease between extensions: a handler that runs long keeps its item.
    const extender = setInterval(() => {
      calls.extend([leaseId], leaseSeconds).catch(() => {});
    }, leaseSeconds * 500);
    try {
      await handler(item, { signal: signal ?? new AbortController().signal });
    } catch (error) {
      clearInterval(extender);
      summary.released++;
      await calls.release([leaseId], retryDelay(item.deliveries), reasonOf(error)).catch(() => {});
      return;
    }
    clearInterval(extender);
    summary.acknowledged++;
    // A failed ack leaves the lease to run out: the item comes back (at least once).
    await calls.ackLeases([leaseId]).catch(() => {});
  };

  let refused: unknown;
  while (!signal?.aborted) {
    const free = concurrency - running.size;
    if (free === 0) {
      await Promise.race(running);
      continue;
    }
    let items: InboxItem[];
    try {
      // With handlers running, a poll does not wait: a handler's end is the next reason to look.
      const waitNow = running.size > 0 || untilEmpty ? 0 : wait;
      items = await calls.lease({ lease: leaseSeconds, limit: free, wait: waitNow, signal });
      failures.reset();
    } catch (error) {
      if (signal?.aborted) break;
      if (isSvcError(error) && error.status < 500 && error.status !== 429) {
        refused = error;
        break;
      }
      await failures.wait(signal);
      continue;
    }
    for (const item of items) {
      const task = handle(item).finally(() => running.delete(task));
      running.add(task);
    }
    if (items.length === 0) {
      if (running.size > 0) await Promise.race(running);
      else if (untilEmpty) break;
      else if (wait === 0) await failures.wait(signal);
    }
  }
  await Promise.all(running);
  if (refused !== undefined) throw refused;
  return summary;
}

/** A thrown value as a release's reason: one line of well-formed text, at most 200 characters. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // deno-lint-ignore no-control-regex
  const line = message.replace(/[\u0000-\u001f\u007f]+/g, " ").trim().toWellFormed();
  return [...(line || "handler threw")].slice(0, MAX_REASON).join("");
}
