/**
 * A TCP connection as the relay sees it (what `Deno.Conn` is), and how bytes
 * are moved on it: with the connection's own `read` and `write` into one small
 * buffer per direction (Web streams on the same sockets cost about four times
 * as much per request).
 *
 * @module
 */

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

/**
 * Copies bytes from one connection to the other until the first one ends, showing each piece to `seen` first.
 *
 * @param from The connection read.
 * @param to The connection written.
 * @param buffer Where each piece is read (its size is the largest piece).
 * @param seen Shown each piece before it is written.
 * @returns When `from` has ended and all it sent is written.
 */
export async function pump(
  from: TcpConnection,
  to: TcpConnection,
  buffer: Uint8Array,
  seen: (bytes: Uint8Array) => void,
): Promise<void> {
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) return;
    const bytes = buffer.subarray(0, n);
    seen(bytes);
    await writeAll(to, bytes);
  }
}

/**
 * Writes all of `data` (a connection's `write` may take only part of it).
 *
 * @param to The connection.
 * @param data The bytes.
 * @returns When all are written.
 */
export async function writeAll(to: TcpConnection, data: Uint8Array): Promise<void> {
  for (let at = 0; at < data.byteLength;) at += await to.write(data.subarray(at));
}

/**
 * Closes a connection, which may be closed already.
 *
 * @param conn The connection.
 */
export function closeQuietly(conn: TcpConnection): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
