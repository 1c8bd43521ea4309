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
