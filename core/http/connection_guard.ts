/**
 * A socket policy in front of an HTTP server that has none of its own (Deno's
 * `Deno.serve`): it accepts connections itself and relays each one to the
 * server, and on the way
 *
 * - survives descriptor exhaustion: a failed accept (`EMFILE`, "Too many open
 *   files") is logged once, retried with backoff, and the server keeps going
 *   (clients wait in the backlog or are refused meanwhile);
 * - caps concurrent connections: past `maxConnections` a new one is closed at once;
 * - closes a connection whose first request head has not arrived within
 *   `headerTimeoutMs` (slow-header attacks) and one silent both ways for
 *   `idleTimeoutMs`.
 *
 * It moves bytes with the connection's own `read` and `write` into one small
 * buffer per direction (what `Deno.Conn` offers): Web streams on the same
 * sockets cost about four times as much per request.
 *
 * @module
 */
import type { ErrorLogger } from "./json.ts";
import { concatBytes } from "./bytes.ts";

/** One end of a TCP connection (what `Deno.Conn` gives as `localAddr` and `remoteAddr`). */
export interface ConnectionEnd {
  /** The IP address. */
  readonly hostname: string;
  /** The port. */
  readonly port: number;
}

/** A TCP connection (what `Deno.Conn` is). */
export interface TcpConnection {
  /** This side's address (the relay's outgoing port is how the server tells connections apart). */
  readonly localAddr?: ConnectionEnd;
  /** The peer's address. */
  readonly remoteAddr?: ConnectionEnd;
  /** Reads bytes from the peer into `buffer`: how many, or `null` at the end. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Writes bytes to the peer: how many of `data` were written. */
  write(data: Uint8Array): Promise<number>;
  /** Ends the sending side (half close). */
  closeWrite(): Promise<void>;
  /** Closes the connection. */
  close(): void;
}

/** The limits of {@linkcode guardConnections}. */
export interface ConnectionLimits {
  /** Most connections served at once; more are closed at once. Default 256. */
  maxConnections?: number;
  /** Time for the first request head (up to its blank line), in milliseconds. Default 10000. */
  headerTimeoutMs?: number;
  /** Time a connection may stay silent both ways, in milliseconds (above the 20 s long poll). Default 60000. */
  idleTimeoutMs?: number;
}

/** The defaults of {@linkcode ConnectionLimits}. */
export const DEFAULT_CONNECTION_LIMITS: Required<ConnectionLimits> = {
  maxConnections: 256,
  headerTimeoutMs: 10_000,
  idleTimeoutMs: 60_000,
};

/** A running guard. */
export interface ConnectionGuard {
  /** Connections being relayed. */
  readonly active: number;
  /**
   * The client's address behind a relayed connection, by the local port of the
   * connection to the server (what the server sees as its peer's port), while the pair is open.
   */
  clientAddressOf(relayPort: number): string | undefined;
  /** Stops accepting (call it before closing the listener, so the closed listener is not taken for a failure). */
  stopAccepting(): void;
  /**
   * Stops accepting, lets relays whose server side has closed deliver what they
   * hold (up to `graceMs`), then closes every connection left.
   */
  close(graceMs?: number): Promise<void>;
}

const HEAD_END = [13, 10, 13, 10];
/** The buffer of each direction of a relayed connection: requests and answers pass in pieces of at most this. */
const CHUNK = 8 * 1024;
/** Longest request head kept while waiting for its end; a longer one is left to the server to refuse. */
const MAX_HEAD = 64 * 1024;

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
  const { maxConnections, headerTimeoutMs, idleTimeoutMs } = { ...DEFAULT_CONNECTION_LIMITS, ...defined };
  const open = new Set<() => void>();
  /** The client's address by the relay's local port towards the server, for each open pair. */
  const clients = new Map<number, string>();
  let closed = false;
  let refusing = false;

  async function acceptLoop(): Promise<void> {
    let failures = 0;
    while (!closed) {
      let conn: TcpConnection;
      try {
        conn = await accept();
      } catch (error) {
        if (closed) return;
        if (failures === 0) log("accepting a connection failed (too many open files?); retrying", error);
        await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** Math.min(failures++, 6))));
        continue;
      }
      if (failures > 0) log(`accepting connections again after ${failures} failures`, undefined);
      failures = 0;
      if (open.size >= maxConnections) {
        if (!refusing) log(`over ${maxConnections} connections: refusing new ones until some close`, undefined);
        refusing = true;
        closeQuietly(conn);
        continue;
      }
      refusing = false;
      relay(conn);
    }
  }

  function relay(conn: TcpConnection): void {
    let up: TcpConnection | undefined;
    let last = Date.now();
    const touch = () => last = Date.now();
    const end = () => {
      if (!open.delete(end)) return;
      clearInterval(watch);
      clearTimeout(headTimer);
      // Forgotten before the port is freed, so a later pair reusing it never finds this client.
      if (up?.localAddr) clients.delete(up.localAddr.port);
      closeQuietly(conn);
      if (up) closeQuietly(up);
    };
    open.add(end);
    const headTimer = setTimeout(end, headerTimeoutMs);
    const watch = setInterval(() => Date.now() - last > idleTimeoutMs && end(), Math.min(idleTimeoutMs, 1000));

    (async () => {
      const fromClient = new Uint8Array(CHUNK);
      const head = await readHead(conn, fromClient);
      clearTimeout(headTimer);
      if (head === null || !open.has(end)) return end();
      up = await upstream().catch((error) => {
        log("the server cannot take the connection", error);
        return undefined;
      });
      if (up === undefined) return end();
      if (!open.has(end)) return closeQuietly(up); // ended (timed out, closing) while connecting
      if (up.localAddr && conn.remoteAddr) clients.set(up.localAddr.port, conn.remoteAddr.hostname);
      touch();
      const server = up;
      const forward = (async () => {
        await writeAll(server, head);
        await pump(conn, server, fromClient, touch);
        await server.closeWrite(); // the client half-closed: let the answer come back
      })();
      forward.catch(() => {}); // a client gone early ends the way back too
      await pump(server, conn, new Uint8Array(CHUNK), touch);
    })().catch(() => {}).finally(end);
  }

  acceptLoop();
  return {
    get active() {
      return open.size;
    },
    clientAddressOf(relayPort) {
      return clients.get(relayPort);
    },
    stopAccepting() {
      closed = true;
    },
    async close(graceMs = 1000) {
      closed = true;
      for (let waited = 0; open.size > 0 && waited < graceMs; waited += 10) {
        await new Promise((r) => setTimeout(r, 10));
      }
      for (const end of [...open]) end();
    },
  };
}

/** Reads until the end of the first request head, into `buffer`; what was read, or `null` when the peer closed first. */
async function readHead(conn: TcpConnection, buffer: Uint8Array): Promise<Uint8Array | null> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let matched = 0;
  for (;;) {
    const n = await conn.read(buffer);
    if (n === null) return null;
    const chunk = buffer.slice(0, n);
    chunks.push(chunk);
    size += n;
    for (const byte of chunk) {
      matched = byte === HEAD_END[matched] ? matched + 1 : byte === HEAD_END[0] ? 1 : 0;
      if (matched === HEAD_END.length) return concatBytes(chunks, size);
    }
    if (size > MAX_HEAD) return concatBytes(chunks, size);
  }
}

/** Copies bytes from one connection to the other until the first one ends. */
async function pump(from: TcpConnection, to: TcpConnection, buffer: Uint8Array, touch: () => void): Promise<void> {
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) return;
    touch();
    await writeAll(to, buffer.subarray(0, n));
  }
}

async function writeAll(to: TcpConnection, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.byteLength;) at += await to.write(data.subarray(at));
}

function closeQuietly(conn: TcpConnection): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
