/**
 * The listener's side of the Deno adapter's socket policy, shared by its two
 * servers (native_server.ts, relay_server.ts): accept connections one after the
 * other, survive descriptor exhaustion, and keep under a connection cap.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { closeQuietly, type TcpConnection } from "./tcp_connection.ts";

/** What {@linkcode acceptConnections} needs. */
export interface AcceptLoop {
  /** Accepts the next connection (rejects on failure, such as EMFILE, or once the listener is closed). */
  accept(): Promise<TcpConnection>;
  /** Connections open now. */
  open(): number;
  /** Takes an accepted connection under the cap. */
  take(conn: TcpConnection): void;
  /** Whether to stop (a rejected accept after this is the closed listener, not a failure). */
  stopped(): boolean;
}

/**
 * Accepts until stopped. A failed accept (`EMFILE`, "Too many open files") is
 * logged once, retried with backoff (25, 50, 100 ms … up to 1 s), and accepting
 * goes on (clients wait in the backlog or are refused meanwhile). Past
 * `maxConnections` open, a new connection is closed at once (logged once per run of refusals).
 *
 * @param loop The listener, the count of open connections, and what takes a connection.
 * @param maxConnections The cap.
 * @param log Where failures are logged.
 * @returns Settles when stopped.
 */
export async function acceptConnections(loop: AcceptLoop, maxConnections: number, log: ErrorLogger): Promise<void> {
  let failures = 0;
  let refusing = false;
  while (!loop.stopped()) {
    let conn: TcpConnection;
    try {
      conn = await loop.accept();
    } catch (error) {
      if (loop.stopped()) return;
      if (failures === 0) log("accepting a connection failed (too many open files?); retrying", error);
      await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** Math.min(failures++, 6))));
      continue;
    }
    if (failures > 0) log(`accepting connections again after ${failures} failures`, undefined);
    failures = 0;
    if (loop.open() >= maxConnections) {
      if (!refusing) log(`over ${maxConnections} connections: refusing new ones until some close`, undefined);
      refusing = true;
      closeQuietly(conn);
      continue;
    }
    refusing = false;
    loop.take(conn);
  }
}

/**
 * Turns Nagle's algorithm off on a connection: each piece written leaves at once (a streamed answer's next event,
 * the next pipelined request), instead of waiting for the peer to acknowledge the last one (up to a delayed ACK's
 * 40 ms).
 *
 * @param conn The connection.
 */
export function noDelay(conn: TcpConnection): void {
  try {
    conn.setNoDelay?.(true);
  } catch {
    // closed already: whoever serves it ends it
  }
}
