/**
 * The agent's side: a small client for an app's `/svc/agent/*` routes and the
 * cloud's inbox, with an inbox consumer that long-polls, carries its cursor,
 * backs off with jitter, and acknowledges an item once the loop moves on from
 * it. Web APIs only: it runs on Deno, Bun, Node and in browsers.
 *
 * @module
 */
import { ERROR_STATUS, type ErrorCode, isSvcError, SvcError } from "../errors/mod.ts";
import { Backoff, sleep } from "../retry/mod.ts";
import type { InboxItem, KeyRefusal } from "../contract/mod.ts";
import type {
  AgentClientOptions,
  AgentIntent,
  AgentKeyInfo,
  InboxOptions,
  InboxPage,
  WorkOptions,
  WorkSummary,
} from "./agent_client_options.ts";
import { workLoop } from "./work_loop.ts";
import { PLATFORM } from "../platform/mod.ts";

export { isSvcError, SvcError } from "../errors/mod.ts";
export type { ErrorCode } from "../errors/mod.ts";
export type { JsonSchema } from "../contract/mod.ts";
export type { InboxItem, KeyRefusal, KeyRefusalReason } from "../contract/mod.ts";
export type {
  AgentClientOptions,
  AgentIntent,
  AgentKeyInfo,
  InboxOptions,
  InboxPage,
  WorkContext,
  WorkOptions,
  WorkSummary,
} from "./agent_client_options.ts";

/**
 * A client for agents: `intents()` and `run()` against the app's `/svc`,
 * `inbox()` (or `poll()` and `ack()`) against the cloud's `/v1`. Every call
 * throws an {@linkcode SvcError}: the contract's code when a server answered
 * with an error, `UNREACHABLE` when it could not be reached or did not answer
 * in time.
 *
 * @example An agent loop
 * ```ts
 * import { AgentClient } from "@svc/agent-access/client";
 *
 * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://localhost:8000", cloudUrl: "http://localhost:8787" });
 * const controller = new AbortController();
 * for await (const item of agent.inbox({ signal: controller.signal })) {
 *   await agent.run("notes.create", { title: String(item.payload.title) }); // idempotent work
 * } // each item is acknowledged once the loop moves on from it
 * ```
 */
export class AgentClient {
  #key: string;
  #appUrl?: string;
  #cloudUrl?: string;
  #fetch: (input: Request) => Promise<Response>;
  #timeoutMs: number;

  /**
   * Creates a client. It makes no request until a method is called.
   *
   * @example A client for an app and its cloud
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({
   *   key: "svc_live_…", // the agent key minted at POST /svc/keys
   *   appUrl: "http://127.0.0.1:8000",
   *   cloudUrl: "http://127.0.0.1:8787",
   *   timeoutMs: 5000,
   * });
   * ```
   *
   * @param options The key and where the app and the cloud are.
   */
  constructor(options: AgentClientOptions) {
    this.#key = options.key;
    this.#appUrl = options.appUrl?.replace(/\/+$/, "");
    this.#cloudUrl = options.cloudUrl?.replace(/\/+$/, "");
    this.#fetch = options.fetch ?? ((req) => PLATFORM.fetch(req));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * Lists the app's intents and whether this key may run each.
   *
   * @example See what this key may run
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://127.0.0.1:8000" });
   * const allowed = (await agent.intents()).filter((intent) => intent.allowed).map((intent) => intent.name);
   * ```
   *
   * @returns The intents.
   * @throws {SvcError} With the contract's code, or `UNREACHABLE` when the app cannot be reached.
   */
  async intents(): Promise<AgentIntent[]> {
    return (await this.#call(this.#base("app"), "GET", "/svc/agent/intents")).intents;
  }

  /**
   * Describes this key as the app sees it: its scopes, and when it stops working (`expiresAt`, or `revokesAt`
   * once its user rerolled it), so an agent can ask for a new key before it is refused.
   *
   * @example Warn before the key expires
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://127.0.0.1:8000" });
   * const { expiresAt, revokesAt } = await agent.key();
   * const ends = [expiresAt, revokesAt].filter((t) => t !== null).sort()[0];
   * if (ends !== undefined) console.log(`this key stops working at ${ends}`);
   * ```
   *
   * @returns The key's id, name, scopes, agentId, `expiresAt` and `revokesAt` (`null`: never).
   * @throws {SvcError} With the contract's code (`UNAUTHORIZED` once it is expired or revoked), or `UNREACHABLE`.
   */
  async key(): Promise<AgentKeyInfo> {
    const { key } = await this.#call(this.#base("app"), "GET", "/svc/agent/intents");
    if (key === undefined) throw new SvcError("INTERNAL", "The app does not describe its keys (an older version)");
    return key;
  }

  /**
   * Runs an intent.
   *
   * @example Run an intent and handle a refusal
   * ```ts
   * import { AgentClient, isSvcError } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://127.0.0.1:8000" });
   * try {
   *   const { id } = await agent.run<{ id: string }>("notes.create", { title: "Buy milk" });
   *   console.log(id);
   * } catch (error) {
   *   if (isSvcError(error) && error.code === "FORBIDDEN_SCOPE") console.log(error.details);
   *   else throw error;
   * }
   * ```
   *
   * @param intent The intent name.
   * @param payload The payload (default `{}`).
   * @returns The intent's result.
   * @throws {SvcError} With the contract's code (`FORBIDDEN_SCOPE`, `INTENT_VALIDATION_ERROR`, …), or
   * `UNREACHABLE` when the app cannot be reached (network error or timeout).
   */
  async run<T = unknown>(intent: string, payload: Record<string, unknown> = {}): Promise<T> {
    return (await this.#call(this.#base("app"), "POST", "/svc/agent/run", { intent, payload })).result as T;
  }

  /**
   * Runs an intent and, when it waits for its user's approval (`202 pending_approval`), follows it to its outcome
   * with held polls of `GET /svc/agent/approvals/:id` (20 s each) until the user decides, it expires or its key is
   * revoked.
   *
   * @example Run an intent that may need its user's approval
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://127.0.0.1:8000" });
   * const outcome = await agent.runAndWait("notes.delete_all", { folder: "old" }, {
   *   onPending: ({ decideUrl }) => console.log(`Ask your user to decide at ${decideUrl}`),
   * });
   * if (outcome.status === "ran" || outcome.status === "approved") console.log(outcome.result);
   * else console.log(`not run: ${outcome.status}`);
   * ```
   *
   * @param intent The intent name.
   * @param payload The payload (default `{}`).
   * @param options `onPending` (told the approval once, to show `decideUrl` to the user) and an abort signal.
   * @returns `ran` (no approval was needed) or `approved` with the result; `denied` (with the reason), `expired` or
   *   `cancelled` when the handler did not run.
   * @throws {SvcError} With the contract's code, also when the handler failed once approved.
   */
  async runAndWait<T = unknown>(
    intent: string,
    payload: Record<string, unknown> = {},
    options: { onPending?: (pending: PendingRun) => void; signal?: AbortSignal } = {},
  ): Promise<RunOutcome<T>> {
    const answer = await this.#call(this.#base("app"), "POST", "/svc/agent/run", { intent, payload });
    if (answer.status !== "pending_approval") return { status: "ran", result: answer.result as T };
    const { approvalId, expiresAt, decideUrl } = answer as PendingRun;
    options.onPending?.({ approvalId, expiresAt, decideUrl });
    const path = `/svc/agent/approvals/${encodeURIComponent(approvalId)}?wait=20`;
    for (;;) {
      const outcome = await this.#call(this.#base("app"), "GET", path, undefined, 20_000, options.signal);
      if (outcome.status === "pending") continue;
      if (outcome.status === "approved") {
        if (outcome.error) {
          throw new SvcError(
            outcome.error.code in ERROR_STATUS ? outcome.error.code : "INTERNAL",
            outcome.error.message,
          );
        }
        if (!("result" in outcome)) continue; // approved, the handler still running
        return { status: "approved", approvalId, result: outcome.result as T };
      }
      if (outcome.status === "denied") return { status: "denied", approvalId, reason: outcome.reason };
      return { status: outcome.status, approvalId };
    }
  }

  /**
   * Fetches one page of the inbox.
   *
   * @example Poll by hand, then acknowledge
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", cloudUrl: "http://127.0.0.1:8787" });
   * const { items, nextCursor } = await agent.poll({ cursor: 0, wait: 20 });
   * await agent.ack(items.map((item) => item.inboxId));
   * console.log(nextCursor);
   * ```
   *
   * @param options Cursor (default 0), limit, long-poll wait in seconds, abort signal.
   * @returns The items and the next cursor.
   * @throws {SvcError} With the contract's code, or `UNREACHABLE` when the cloud cannot be reached.
   */
  async poll(
    options: { cursor?: number; limit?: number; wait?: number; lease?: number; signal?: AbortSignal } = {},
  ): Promise<InboxPage> {
    const query = new URLSearchParams({ cursor: String(options.cursor ?? 0) });
    if (options.lease !== undefined) query.set("lease", String(options.lease));
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.wait !== undefined) query.set("wait", String(options.wait));
    const extra = (options.wait ?? 0) * 1000;
    return await this.#call(this.#base("cloud"), "GET", `/v1/agent/inbox?${query}`, undefined, extra, options.signal);
  }

  /**
   * Acknowledges handled items. Ids already acknowledged or not this agent's are ignored.
   *
   * @example Acknowledge two items
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", cloudUrl: "http://127.0.0.1:8787" });
   * const acknowledged = await agent.ack([41, 42]);
   * ```
   *
   * @param inboxIds Up to 500 inbox ids.
   * @returns How many were newly acknowledged.
   * @throws {SvcError} With the contract's code, or `UNREACHABLE` when the cloud cannot be reached.
   */
  async ack(inboxIds: number[]): Promise<number> {
    if (inboxIds.length === 0) return 0;
    return (await this.#call(this.#base("cloud"), "POST", "/v1/agent/ack", { inboxIds })).acknowledged;
  }

  /**
   * Acknowledges leased items by their lease ids (a lease that ended and was handed out again is ignored).
   *
   * @param leaseIds Up to 500 lease ids, from items of a poll with `lease`.
   * @returns How many were newly acknowledged.
   * @throws {SvcError} With the contract's code, or `UNREACHABLE` when the cloud cannot be reached.
   */
  async ackLeases(leaseIds: string[]): Promise<number> {
    if (leaseIds.length === 0) return 0;
    return (await this.#call(this.#base("cloud"), "POST", "/v1/agent/ack", { leaseIds })).acknowledged;
  }

  /**
   * Extends leases to `seconds` from now.
   *
   * @param leaseIds Up to 500 lease ids.
   * @param seconds The lease's new end, 1..43200 seconds from now.
   * @returns The leases extended, with their new end.
   * @throws {SvcError} `NOT_FOUND` when none is a lease this agent holds.
   */
  async extendLeases(
    leaseIds: string[],
    seconds: number,
  ): Promise<{ leaseId: string; leaseExpiresAt: string }[]> {
    return (await this.#call(this.#base("cloud"), "POST", "/v1/agent/leases/extend", { leaseIds, seconds })).leases;
  }

  /**
   * Releases leased items back to the queue, optionally after a delay; `reason` is recorded if this makes an item a
   * dead letter (its project's maxDeliveries reached).
   *
   * @param leaseIds Up to 500 lease ids.
   * @param options Seconds before the items are handed out again (default 0), and the reason.
   * @returns How many were released.
   * @throws {SvcError} `NOT_FOUND` when none is a lease this agent holds.
   */
  async releaseLeases(leaseIds: string[], options: { delaySeconds?: number; reason?: string } = {}): Promise<number> {
    return (await this.#call(this.#base("cloud"), "POST", "/v1/agent/leases/release", { leaseIds, ...options }))
      .released;
  }

  /**
   * Works the inbox as a queue: polls with leases (no other worker of this agent gets an item while it is leased
   * here), runs up to `concurrency` handlers at once, extends the lease of a handler that runs long (every half
   * lease), releases an item with a growing delay when its handler throws, and acknowledges it when the handler
   * returns. Runs until `signal` aborts (the running handlers finish first) or, with `untilEmpty`, nothing is left.
   *
   * @example Eight handlers at once, each item leased for 60 s
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", cloudUrl: "http://127.0.0.1:8787" });
   * const stop = new AbortController();
   * await agent.work({
   *   leaseSeconds: 60,
   *   concurrency: 8,
   *   signal: stop.signal,
   *   handler: async (item) => {
   *     console.log(item.type, item.payload); // throw to have it handed out again after a delay
   *   },
   * });
   * ```
   *
   * @param options The handler, the lease, the concurrency, the signal.
   * @returns How many items were acknowledged and how many released after a throw.
   * @throws {SvcError} A poll refused for good (401 of a revoked key, say), once the running handlers finished.
   */
  async work(options: WorkOptions): Promise<WorkSummary> {
    return await workLoop({
      lease: async ({ lease, limit, wait, signal }) => (await this.poll({ lease, limit, wait, signal })).items,
      extend: (leaseIds, seconds) => this.extendLeases(leaseIds, seconds),
      release: (leaseIds, delaySeconds, reason) => this.releaseLeases(leaseIds, { delaySeconds, reason }),
      ackLeases: (leaseIds) => this.ackLeases(leaseIds),
    }, options);
  }

  /**
   * Consumes the inbox: long-polls, carries the cursor, backs off (with jitter)
   * when the inbox is empty or the cloud fails, and acknowledges each item once
   * the loop moves on from it. If the body throws, that item is not
   * acknowledged and the error ends the loop; the item comes back on the next
   * `inbox()` started from 0 or from the last `onCursor` value.
   *
   * JavaScript ends a `for await` loop the same way for `break` and for a throw
   * (it calls the generator's `return()` with no reason), so the client cannot
   * tell them apart and treats both as "not handled": the item a `break` leaves
   * comes back later. To stop after handling an item, abort `signal` instead:
   * the loop then ends with that item acknowledged. To handle what waits and
   * stop, pass `untilEmpty: true`.
   *
   * @example Handle everything waiting, then stop
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", cloudUrl: "http://127.0.0.1:8787" });
   * for await (const item of agent.inbox({ wait: 0, untilEmpty: true })) {
   *   console.log(item.type, item.payload); // acknowledged once the loop moves on
   * }
   * ```
   *
   * @example Stop after one item, with it acknowledged
   * ```ts
   * import { AgentClient } from "@svc/agent-access/client";
   *
   * const agent = new AgentClient({ key: "svc_live_…", cloudUrl: "http://127.0.0.1:8787" });
   * const stop = new AbortController();
   * for await (const item of agent.inbox({ signal: stop.signal })) {
   *   console.log(item.type);
   *   stop.abort(); // not `break`, which would leave the item for next time
   * }
   * ```
   *
   * @param options Signal, cursor, page size, wait, backoff, and whether to stop when the inbox is empty.
   * @returns The items, one at a time.
   */
  async *inbox(options: InboxOptions = {}): AsyncGenerator<InboxItem, void, undefined> {
    const { signal, limit, wait = 20, onCursor, retryMinMs = 250, retryMaxMs = 30_000, untilEmpty = false } = options;
    let cursor = options.cursor ?? 0;
    let done: number[] = [];
    const failures = new Backoff({ minMs: retryMinMs, maxMs: retryMaxMs });
    const empties = new Backoff({ minMs: retryMinMs, maxMs: retryMaxMs });
    const flush = async () => {
      if (done.length === 0) return;
      const ids = done;
      await this.ack(ids);
      done = [];
      onCursor?.(ids[ids.length - 1]);
    };
    try {
      while (!signal?.aborted) {
        let page: InboxPage;
        try {
          await flush();
          page = await this.poll({ cursor, limit, wait, signal });
          failures.reset();
        } catch (error) {
          if (signal?.aborted) return;
          if (!shouldRetry(error)) throw error;
          await failures.wait(signal);
          continue;
        }
        if (page.items.length === 0) {
          if (untilEmpty) return;
          // A long poll already waited; a short one backs off so an idle agent stays cheap.
          await (wait > 0 ? sleep(retryMinMs * PLATFORM.random(), signal) : empties.wait(signal));
          continue;
        }
        empties.reset();
        for (const item of page.items) {
          yield item;
          done.push(item.inboxId);
          if (signal?.aborted) return; // the rest of the page stays unacknowledged
        }
        cursor = page.nextCursor;
      }
    } finally {
      await flush().catch(() => {});
    }
  }

  #base(which: "app" | "cloud"): string {
    const base = which === "app" ? this.#appUrl : this.#cloudUrl;
    if (base === undefined) throw new Error(`AgentClient needs ${which}Url for this call`);
    return base;
  }

  async #call(
    base: string,
    method: string,
    path: string,
    body?: unknown,
    extraMs = 0,
    signal?: AbortSignal,
    // deno-lint-ignore no-explicit-any
  ): Promise<any> {
    const timeout = AbortSignal.timeout(this.#timeoutMs + extraMs);
    let res: Response;
    try {
      res = await this.#fetch(
        new Request(base + path, {
          method,
          headers: body === undefined
            ? { authorization: `Bearer ${this.#key}` }
            : { authorization: `Bearer ${this.#key}`, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        }),
      );
    } catch (cause) {
      if (signal?.aborted) throw cause; // the caller's own abort stays an AbortError
      const why = timeout.aborted ? `no answer within ${this.#timeoutMs + extraMs} ms` : (cause as Error).message;
      throw new SvcError("UNREACHABLE", `${base} cannot be reached (${why})`, { cause });
    }
    const data = await res.json().catch(() => null);
    if (res.ok) return data;
    const code = data?.error?.code as ErrorCode | undefined;
    const retryAfter = res.headers.get("retry-after");
    throw new SvcError(
      code !== undefined && code in ERROR_STATUS ? code : "INTERNAL",
      data?.error?.message ?? `HTTP ${res.status}`,
      {
        details: data?.error?.details,
        headers: retryAfter === null ? undefined : { "retry-after": retryAfter },
      },
    );
  }
}

/** Network failures, timeouts, 429 and 5xx pass; anything else (401, 400) will not. */
function shouldRetry(error: unknown): boolean {
  if (!(error instanceof SvcError)) return true;
  return error.status === 429 || error.status >= 500;
}

const REFUSAL_REASONS = new Set(["revoked", "expired", "rerolled"]);

/**
 * Why the agent's key stopped working, from the error of a call: `{ reason, at }` on the `401` of a key that exists
 * but was revoked, expired, or rerolled past its grace (ask for a new key, or use the reroll's); `null` for any other
 * error, an unknown key included (a typo, or another app's key).
 *
 * @example Telling "ask for a new key" from a typo
 * ```ts
 * import { AgentClient, keyRefusalOf } from "@svc/agent-access/client";
 *
 * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://localhost:8000" });
 * try {
 *   await agent.intents();
 * } catch (error) {
 *   const refusal = keyRefusalOf(error);
 *   if (refusal !== null) console.log(`key ${refusal.reason} at ${refusal.at}: ask for a new one`);
 * }
 * ```
 *
 * @param error What a call threw.
 * @returns The reason and its time, or `null`.
 */
export function keyRefusalOf(error: unknown): KeyRefusal | null {
  if (!isSvcError(error) || error.code !== "UNAUTHORIZED") return null;
  const details = error.details as { reason?: unknown; at?: unknown } | undefined;
  if (typeof details?.reason !== "string" || !REFUSAL_REASONS.has(details.reason)) return null;
  if (typeof details.at !== "string") return null;
  return { reason: details.reason as KeyRefusal["reason"], at: details.at };
}

/** A run waiting for its user's approval: where the user decides, and until when. */
export interface PendingRun {
  /** `apr_` + ULID. */
  approvalId: string;
  /** When it expires if nobody decides (ISO 8601). */
  expiresAt: string;
  /** The page where the user decides. */
  decideUrl: string;
}

/** How {@linkcode AgentClient.runAndWait} ended. */
export type RunOutcome<T> =
  | { status: "ran"; result: T }
  | { status: "approved"; approvalId: string; result: T }
  | { status: "denied"; approvalId: string; reason?: string }
  | { status: "expired" | "cancelled"; approvalId: string };
