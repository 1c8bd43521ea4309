/**
 * A socket policy in front of an HTTP server that has none of its own (Deno's
 * `Deno.serve`): it accepts connections itself and relays each one to the
 * server, and on the way
 *
 * - survives descriptor exhaustion: a failed accept (`EMFILE`, "Too many open
 *   files") is logged once, retried with backoff, and the server keeps going
 *   (clients wait in the backlog or are refused meanwhile);
 * - caps concurrent connections: past `maxConnections` a new one is closed at once;
 * - times every request of a connection (adapters/deno/request_framing.ts): its head
 *   must arrive within `headerTimeoutMs` of its first byte (the first request's, of
 *   the connection's opening) and the whole request within `requestTimeoutMs`, else
 *   the connection is closed (slow-header and slow-body attacks, kept-alive or not);
 * - closes a connection silent both ways for `idleTimeoutMs` (also between requests).
 *
 * A connection the server switches to another protocol (a WebSocket, told by
 * {@linkcode ConnectionGuard.upgraded}) is no longer read as requests: only the
 * idle timeout applies. The HTTP/2 preface (cleartext HTTP/2 with prior knowledge,
 * which the guard cannot time) is refused.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "../../core/http/mod.ts";
import { concatBytes } from "../../core/http/mod.ts";
import { requestFraming } from "./request_framing.ts";
import { closeQuietly, pump, ReadBuffer, type TcpConnection, writeAll } from "./tcp_connection.ts";
import { acceptConnections, noDelay } from "./accept_loop.ts";

/**
 * What the server behind may tell and ask about a relayed connection, by the
 * local port of the relay's connection to it (what the server sees as its peer's
 * port), while the pair is open.
 */
export interface RelayedConnections {
  /** The client's address. */
  clientAddressOf(relayPort: number): string | undefined;
  /** The server switched the connection to another protocol (answered 101, as for a WebSocket). */
  upgraded(relayPort: number): void;
}

/** A running guard. */
export interface ConnectionGuard extends RelayedConnections {
  /** Connections being relayed. */
  readonly active: number;
  /** Stops accepting (call it before closing the listener, so the closed listener is not taken for a failure). */
  stopAccepting(): void;
  /**
   * Stops accepting, lets relays whose server side has closed deliver what they
   * hold (up to `graceMs`), then closes every connection left.
   */
  close(graceMs?: number): Promise<void>;
}

/** The most read of the first request before connecting to the server (the rest of a longer head follows as it comes). */
const MAX_HEAD_BYTES = 64 * 1024;
/** How cleartext HTTP/2 with prior knowledge opens ("PRI * HTTP/2.0"). */
const HTTP2_PREFACE = "PRI * HTTP/2";

/**
 * Accepts connections with `accept` and relays each to a fresh `upstream()`
 * connection under the limits, until {@linkcode ConnectionGuard.stopAccepting} and a rejected `accept`.
 *
 * @param accept Accepts the next connection (rejects on failure, such as EMFILE).
 * @param upstream Opens a connection to the server.
 * @param limits The limits.
 * @param log Where failures are logged.
 * @returns The guard.
 */
export function guardConnections(
  accept: () => Promise<TcpConnection>,
  upstream: () => Promise<TcpConnection>,
  limits: ConnectionLimits,
  log: ErrorLogger,
): ConnectionGuard {
  const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  const { maxConnections, headerTimeoutMs, requestTimeoutMs, idleTimeoutMs } = {
    ...DEFAULT_CONNECTION_LIMITS,
    ...defined,
  };
  /** How often each connection's deadlines are checked: a late one is closed up to this much later. */
  const checkEveryMs = Math.max(10, Math.min(1000, idleTimeoutMs, headerTimeoutMs, requestTimeoutMs));
  /** Each open connection's end, and whether it is late or idle for too long at a time. */
  const open = new Map<() => void, (now: number) => boolean>();
  /** One watch for all connections (a timer each cost memory and woke the process once per connection). */
  let watch: ReturnType<typeof setInterval> | undefined;
  const checkAll = () => {
    const now = Date.now();
    for (const [end, overdue] of open) if (overdue(now)) end();
  };
  /** Forgets an ended connection; the watch stops with the last one. */
  const forget = (end: () => void): boolean => {
    if (!open.delete(end)) return false;
    if (open.size === 0 && watch !== undefined) {
      clearInterval(watch);
      watch = undefined;
    }
    return true;
  };
  /** Each open pair by the relay's local port towards the server: the client's address, and how to stop timing it. */
  const pairs = new Map<number, { address?: string; upgraded(): void }>();
  let closed = false;

  function relay(conn: TcpConnection): void {
    noDelay(conn);
    let up: TcpConnection | undefined;
    let last = Date.now();
    const touch = () => last = Date.now();
    /** When the current request's first byte came (the first request's: when the connection opened). */
    let started = last;
    /** When the current request is late (checked with the idle timeout); none between requests. */
    let deadline = last + headerTimeoutMs;
    const notDue = () => {
      deadline = Infinity;
    };
    let upgraded = false;
    let headSeen = false;
    const end = () => {
      if (!forget(end)) return;
      // Forgotten before the port is freed, so a later pair reusing it never finds this client.
      if (up?.localAddr) pairs.delete(up.localAddr.port);
      closeQuietly(conn);
      if (up) closeQuietly(up);
    };
    open.set(end, (now) => now > deadline || now - last > idleTimeoutMs);
    watch ??= setInterval(checkAll, checkEveryMs);
    const frame = requestFraming({
      started() {
        if (deadline !== Infinity) return; // the first request, timed since the connection opened
        started = Date.now();
        deadline = started + headerTimeoutMs;
      },
      headEnded() {
        headSeen = true;
        deadline = started + Math.max(requestTimeoutMs, headerTimeoutMs);
      },
      ended: notDue,
    });
    const fromClient = (bytes: Uint8Array) => {
      touch();
      if (!upgraded) frame(bytes);
    };

    (async () => {
      const buffer = new ReadBuffer();
      const early = await readFirstHead(conn, buffer, fromClient, () => headSeen);
      if (early === null || !open.has(end) || startsWith(early, HTTP2_PREFACE)) return end();
      up = await upstream().catch((error) => {
        log("the server cannot take the connection", error);
        return undefined;
      });
      if (up === undefined) return end();
      if (!open.has(end)) return closeQuietly(up); // ended (timed out, closing) while connecting
      noDelay(up);
      if (up.localAddr) {
        pairs.set(up.localAddr.port, {
          address: conn.remoteAddr?.hostname,
          upgraded() {
            upgraded = true;
            notDue();
          },
        });
      }
      touch();
      const server = up;
      const forward = (async () => {
        await writeAll(server, early);
        await pump(conn, server, buffer, fromClient);
        await server.closeWrite(); // the client half-closed: let the answer come back
      })();
      forward.catch(() => {}); // a client gone early ends the way back too
      await pump(server, conn, new ReadBuffer(), touch);
    })().catch(() => {}).finally(end);
  }

  acceptConnections({ accept, open: () => open.size, take: relay, stopped: () => closed }, maxConnections, log);
  return {
    get active() {
      return open.size;
    },
    clientAddressOf(relayPort) {
      return pairs.get(relayPort)?.address;
    },
    upgraded(relayPort) {
      pairs.get(relayPort)?.upgraded();
    },
    stopAccepting() {
      closed = true;
    },
    async close(graceMs = 1000) {
      closed = true;
      for (let waited = 0; open.size > 0 && waited < graceMs; waited += 10) {
        await new Promise((r) => setTimeout(r, 10));
      }
      for (const end of [...open.keys()]) end();
    },
  };
}

/**
 * Reads until `headEnded()` (the first request head has ended) or more than
 * {@linkcode MAX_HEAD_BYTES} came (Deno.serve refuses a head over 64 KiB), passing each
 * piece to `seen`: all that was read, or `null` when the peer closed first.
 */
async function readFirstHead(
  conn: TcpConnection,
  buffer: ReadBuffer,
  seen: (bytes: Uint8Array) => void,
  headEnded: () => boolean,
): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (!headEnded() && size <= MAX_HEAD_BYTES) {
    const read = await buffer.read(conn);
    if (read === null) return null;
    seen(read);
    // A head in one piece is passed on as read: it is written to the server before the buffer is read into again.
    if (chunks.length === 0 && headEnded()) return read;
    chunks.push(read.slice()); // the buffer is read into again
    size += read.byteLength;
  }
  return concatBytes(chunks, size);
}

/** Whether `bytes` begin with the ASCII `text`. */
function startsWith(bytes: Uint8Array, text: string): boolean {
  if (bytes.byteLength < text.length) return false;
  for (let i = 0; i < text.length; i++) if (bytes[i] !== text.charCodeAt(i)) return false;
  return true;
}
