/**
 * A TCP connection as the relay sees it (what `Deno.Conn` is), and how bytes
 * are moved on it: with the connection's own `read` and `write` into one buffer
 * per direction (Web streams on the same sockets cost about four times as much
 * per request), growing while pieces fill it and back to its first size after
 * a piece that fits that.
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
  /** Sends each write at once, without waiting for the peer to acknowledge the last (no Nagle). */
  setNoDelay?(noDelay?: boolean): void;
}

/**
 * The buffer a direction starts with and goes back to: a request head or a short answer fits. (1 KiB buffers held
 * 5,000 idle long polls in more resident memory than 8 KiB ones on Deno, 77-100 MB against 40 MB over the server's
 * idle RSS: fewer external bytes, fewer collections of the garbage the polls left.)
 */
export const SMALL_READ = 8 * 1024;
/** The largest buffer a direction grows to while pieces fill it (a long body or answer). */
export const LARGE_READ = 64 * 1024;

/**
 * Where one direction of a connection is read: {@linkcode SMALL_READ} bytes, eight times more after a read filled it
 * (up to {@linkcode LARGE_READ}: a long body passes in fewer reads and writes), and small again after a piece that
 * fits the small one. A connection waiting for its next request or answer holds only the small buffer.
 */
export class ReadBuffer {
  #small = new Uint8Array(SMALL_READ);
  #current = this.#small;

  /**
   * Reads the next piece.
   *
   * @param from The connection.
   * @returns The bytes read (valid until the next read), or `null` at the end.
   */
  async read(from: TcpConnection): Promise<Uint8Array | null> {
    return this.took(await from.read(this.next));
  }

  /** Where the next piece is to be read (what {@linkcode ReadBuffer.took} is then told of). */
  get next(): Uint8Array {
    return this.#current;
  }

  /**
   * Takes what a read into {@linkcode ReadBuffer.next} gave.
   *
   * @param n How many bytes were read, or `null` at the end.
   * @returns The bytes read (valid until the next read), or `null` at the end.
   */
  took(n: number | null): Uint8Array | null {
    const buffer = this.#current;
    if (n === null) return null;
    if (n === buffer.byteLength && n < LARGE_READ) this.#current = new Uint8Array(Math.min(8 * n, LARGE_READ));
    else if (n <= SMALL_READ) this.#current = this.#small;
    return buffer.subarray(0, n);
  }
}

/**
 * Copies bytes from one connection to the other until the first one ends, showing each piece to `seen` first.
 *
 * @param from The connection read.
 * @param to The connection written.
 * @param buffer Where each piece is read.
 * @param seen Shown each piece before it is written.
 * @returns When `from` has ended and all it sent is written.
 */
export async function pump(
  from: TcpConnection,
  to: TcpConnection,
  buffer: ReadBuffer,
  seen: (bytes: Uint8Array) => void,
): Promise<void> {
  // One await per read and one per write, no async helper between (a piece is most often written whole).
  for (;;) {
    const bytes = buffer.took(await from.read(buffer.next));
    if (bytes === null) return;
    seen(bytes);
    const written = await to.write(bytes);
    if (written < bytes.byteLength) await writeAll(to, bytes.subarray(written));
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
