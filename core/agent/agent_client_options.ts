/**
 * What `AgentClient` takes and returns: its options, an intent as an
 * agent sees it, a page of the inbox, and the options of the inbox consumer.
 *
 * @module
 */
import type { JsonSchema } from "../contract/mod.ts";
import type { InboxItem } from "../contract/mod.ts";

/** Options of `AgentClient`. */
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

/** The key an agent presents, as the app describes it (never its owner or secret). */
export interface AgentKeyInfo {
  /** The key's id. */
  id: string;
  /** Its name (an OAuth access token's: the client's name). */
  name: string;
  /** The scopes it holds. */
  scopes: string[];
  /** The inbox it reads. */
  agentId: string;
  /** ISO 8601 when it stops working, or `null`: never. */
  expiresAt: string | null;
  /** ISO 8601 when its scheduled revocation takes effect (it was rerolled: ask its user for the new key), or `null`. */
  revokesAt: string | null;
}

/** A page of the inbox. */
export interface InboxPage {
  /** Unacknowledged items after the cursor, oldest first. */
  items: InboxItem[];
  /** Pass it as `cursor` next time. */
  nextCursor: number;
}

/** Options of `AgentClient.inbox`. */
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
  /** End the loop at the first poll that finds nothing new: handle what waits, then return. Default false. */
  untilEmpty?: boolean;
}

/** What a handler of `AgentClient.work` is given besides its item. */
export interface WorkContext {
  /** The loop's signal: aborted when the worker is asked to stop. */
  signal: AbortSignal;
}

/** Options of `AgentClient.work`. */
export interface WorkOptions {
  /**
   * Handles one item. Returning acknowledges it; throwing releases it back to the queue after
   * `retryDelay(deliveries)` seconds (at the project's maxDeliveries it becomes a dead letter instead).
   */
  handler: (item: InboxItem, context: WorkContext) => Promise<void> | void;
  /** Seconds each item is leased for (1..43200); a handler still running at half of it extends it. Default 30. */
  leaseSeconds?: number;
  /** Handlers running at once (1..200). Default 1. */
  concurrency?: number;
  /** Stops polling; the handlers running finish, then `work()` returns. */
  signal?: AbortSignal;
  /** Seconds a poll waits for an item while no handler runs (0..20). Default 20. */
  wait?: number;
  /** Return once nothing is free in the inbox and no handler runs. Default false. */
  untilEmpty?: boolean;
  /** Seconds before a failed item is handed out again, by its deliveries so far. Default 1, 2, 4… up to 300. */
  retryDelay?: (deliveries: number) => number;
  /** First backoff delay in milliseconds after a failed poll. Default 250. */
  retryMinMs?: number;
  /** Longest backoff delay in milliseconds. Default 30000. */
  retryMaxMs?: number;
}

/** What `AgentClient.work` did. */
export interface WorkSummary {
  /** Items whose handler returned (acknowledged). */
  acknowledged: number;
  /** Items whose handler threw (released with a delay). */
  released: number;
}
