/**
 * The agent's side: a small client for an app's `/svc/agent/*` routes and the
 * cloud's inbox, with an inbox consumer that long-polls, carries its cursor,
 * backs off with jitter, and acknowledges an item only after the loop body for
 * it completed. Web APIs only: it runs on Deno, Bun, Node and in browsers.
 *
 * @module
 */
import { ERROR_STATUS, type ErrorCode, SvcError } from "../contract/errors.ts";
import { backoffDelay, sleep } from "../http/backoff.ts";
import type { JsonSchema } from "../app/intents.ts";
import type { InboxItem } from "../contract/inbox_item.ts";

export { isSvcError, SvcError } from "../contract/errors.ts";
export type { ErrorCode } from "../contract/errors.ts";
export type { InboxItem, JsonSchema };

/** Options of {@linkcode AgentClient}. */
export interface AgentClientOptions {
  /** The agent key, `svc_live_…`. */
  key: string;
  /** The app's base URL, for `intents()` and `run()`. */
  appUrl?: string;
  /** The cloud's base URL, for the inbox. */
  cloudUrl?: string;
  /** A fetch to use instead of the global one. */
  fetch?: (input: Request) => Promise<Response>;
  /** Per-request timeout in milliseconds (a long poll gets its `wait` on top). Default 10000. */
  timeoutMs?: number;
}

/** An intent as an agent sees it. */
export interface AgentIntent {
  /** Intent name. */
  name: string;
  /** Display title. */
  title: string;
  /** Scopes a key must hold. */
  requiredScopes: string[];
  /** JSON Schema of the payload. */
  input: JsonSchema;
  /** JSON Schema of the result. */
  output: JsonSchema;
  /** Whether this key holds every required scope. */
  allowed: boolean;
}

/** A page of the inbox. */
export interface InboxPage {
  /** Unacknowledged items after the cursor, oldest first. */
  items: InboxItem[];
  /** Pass it as `cursor` next time. */
  nextCursor: number;
}

/** Options of {@linkcode AgentClient.inbox}. */
export interface InboxOptions {
  /** Stops the loop (after the current item). */
  signal?: AbortSignal;
  /** Where to start: 0 (default) delivers everything not yet acknowledged. */
  cursor?: number;
  /** Items per poll, up to 200. Default 50. */
  limit?: number;
  /** Seconds a poll waits for an item (0..20). Default 20. */
  wait?: number;
  /** Called with a cursor safe to resume from: every item up to it is acknowledged. */
  onCursor?: (cursor: number) => void;
  /** First backoff delay in milliseconds. Default 250. */
  retryMinMs?: number;
  /** Longest backoff delay in milliseconds. Default 30000. */
  retryMaxMs?: number;
}

/**
 * A client for agents.
 *
 * @example An agent loop
 * ```ts
 * import { AgentClient } from "@svc/agent-access/client";
 *
 * const agent = new AgentClient({ key: "svc_live_…", appUrl: "http://localhost:8000", cloudUrl: "http://localhost:8787" });
 * const controller = new AbortController();
 * for await (const item of agent.inbox({ signal: controller.signal })) {
 *   await agent.run("notes.create", { title: String(item.payload.title) }); // idempotent work
 * } // each item is acknowledged after its loop body completes
 * ```
 */
export class AgentClient {
  #key: string;
  #appUrl?: string;
  #cloudUrl?: string;
  #fetch: (input: Request) => Promise<Response>;
  #timeoutMs: number;

  /**
   * Creates a client.
   *
   * @param options The key and where the app and the cloud are.
   */
  constructor(options: AgentClientOptions) {
    this.#key = options.key;
    this.#appUrl = options.appUrl?.replace(/\/+$/, "");
    this.#cloudUrl = options.cloudUrl?.replace(/\/+$/, "");
    this.#fetch = options.fetch ?? ((req) => fetch(req));
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /**
   * Lists the app's intents and whether this key may run each.
   *
   * @returns The intents.
   */
  async intents(): Promise<AgentIntent[]> {
    return (await this.#call(this.#base("app"), "GET", "/svc/agent/intents")).intents;
  }

  /**
   * Runs an intent.
   *
   * @param intent The intent name.
   * @param payload The payload (default `{}`).
   * @returns The intent's result.
   * @throws {SvcError} With the contract's code (`FORBIDDEN_SCOPE`, `INTENT_VALIDATION_ERROR`, …).
   */
  async run<T = unknown>(intent: string, payload: Record<string, unknown> = {}): Promise<T> {
    return (await this.#call(this.#base("app"), "POST", "/svc/agent/run", { intent, payload })).result as T;
  }

  /**
   * Fetches one page of the inbox.
   *
   * @param options Cursor (default 0), limit, long-poll wait in seconds, abort signal.
   * @returns The items and the next cursor.
   */
  async poll(
    options: { cursor?: number; limit?: number; wait?: number; signal?: AbortSignal } = {},
  ): Promise<InboxPage> {
    const query = new URLSearchParams({ cursor: String(options.cursor ?? 0) });
    if (options.limit !== undefined) query.set("limit", String(options.limit));
    if (options.wait !== undefined) query.set("wait", String(options.wait));
    const extra = (options.wait ?? 0) * 1000;
    return await this.#call(this.#base("cloud"), "GET", `/v1/agent/inbox?${query}`, undefined, extra, options.signal);
  }

  /**
   * Acknowledges handled items.
   *
   * @param inboxIds Up to 500 inbox ids.
   * @returns How many were newly acknowledged.
   */
  async ack(inboxIds: number[]): Promise<number> {
    if (inboxIds.length === 0) return 0;
    return (await this.#call(this.#base("cloud"), "POST", "/v1/agent/ack", { inboxIds })).acknowledged;
  }

  /**
   * Consumes the inbox: long-polls, carries the cursor, backs off (with jitter)
   * when the inbox is empty or the cloud fails, and acknowledges each item once
   * the loop body for it has completed. If the body throws, that item is not
   * acknowledged and the error ends the loop; the item comes back on the next
   * `inbox()` started from 0 or from the last `onCursor` value.
   *
   * @param options Signal, cursor, page size, wait and backoff.
   * @returns The items, one at a time.
   */
  async *inbox(options: InboxOptions = {}): AsyncGenerator<InboxItem, void, undefined> {
    const { signal, limit, wait = 20, onCursor, retryMinMs = 250, retryMaxMs = 30_000 } = options;
    let cursor = options.cursor ?? 0;
    let done: number[] = [];
    let failures = 0;
    let empties = 0;
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
          failures = 0;
        } catch (error) {
          if (signal?.aborted) return;
          if (!shouldRetry(error)) throw error;
          await sleep(backoffDelay(failures++, retryMinMs, retryMaxMs), signal);
          continue;
        }
        if (page.items.length === 0) {
          // A long poll already waited; a short one backs off so an idle agent stays cheap.
          await sleep(wait > 0 ? retryMinMs * Math.random() : backoffDelay(empties++, retryMinMs, retryMaxMs), signal);
          continue;
        }
        empties = 0;
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
    const res = await this.#fetch(
      new Request(base + path, {
        method,
        headers: body === undefined
          ? { authorization: `Bearer ${this.#key}` }
          : { authorization: `Bearer ${this.#key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      }),
    );
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
