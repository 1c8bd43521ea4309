/**
 * The Deno adapter's server where Deno lets HTTP be served on a connection of
 * one's own (`serveHttpOnConnection`, what Deno's `node:http2` is built on):
 * the adapter accepts each connection itself (adapters/deno/accept_loop.ts: a
 * cap on connections from the open-file limit, accept failures survived) and
 * hands it to Deno's native HTTP server, so a request crosses one socket, not
 * the relay's two. The adapter times each connection by what it sees of it,
 * requests and their answers:
 *
 * - the first request's head must arrive within `headerTimeoutMs` of the connection's opening;
 * - a request with a body must be answered (its handler return) within `requestTimeoutMs` of its head
 *   (at least `headerTimeoutMs`): a body trickled slower never reaches the end of its handler;
 * - between requests a connection is kept for `idleTimeoutMs`, at most {@linkcode KEEP_ALIVE_MS} (5 s, Node's
 *   keep-alive timeout): a next head that trickles is closed by then, as a quiet connection is;
 * - a request being answered is not timed (a long poll, an event stream): its handler's own bounds apply.
 *
 * Deno cannot switch a connection served this way to a WebSocket (it closes it once the 101 is sent): an answer
 * 101 is logged once, pointing to `serve`'s `webSockets: true`, which relays instead. Cleartext HTTP/2 with prior
 * knowledge is served, each of its requests timed as above.
 *
 * A late connection is closed at once, whatever it was doing; a request of it still in its handler is answered
 * 408 first (as Node answers a request past its timeout), and one still there when `close(timeoutMs)` runs out, 503.
 *
 * @module
 */
import type { ErrorLogger } from "../../core/logging/mod.ts";
import {
  connectionBudget,
  type ConnectionLimits,
  DEFAULT_CONNECTION_LIMITS,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
} from "../../core/http/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";
import { acceptConnections, noDelay } from "./accept_loop.ts";
import { closeQuietly, type TcpConnection } from "./tcp_connection.ts";

/** The longest a connection is kept between requests (Node's own keep-alive timeout). */
export const KEEP_ALIVE_MS = 5_000;

/** What Deno's native server gives to a handler beside the request. */
export interface ServeInfo {
  /** Settles when the answer has been sent (rejects when it could not be). */
  readonly completed: Promise<void>;
}

/** A request handler as Deno's native server calls it. */
export type NativeHandler = (req: Request, info: ServeInfo) => Response | Promise<Response>;

/** HTTP being served on one connection (what `serveHttpOnConnection` returns). */
export interface ServedConnection {
  /** Settles when the connection has closed. */
  finished: Promise<void>;
  /** Stops taking requests: an idle connection closes at once, a busy one after its answer. */
  shutdown(): Promise<void>;
}

/** Deno's `serveHttpOnConnection`: serves HTTP on `conn` until `signal` aborts. */
export type ServeOnConnection = (
  conn: TcpConnection,
  signal: AbortSignal,
  handler: NativeHandler,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => ServedConnection;

/**
 * Deno's way to serve HTTP on a connection of one's own (`serveHttpOnConnection`, internal: what Deno's `node:http2`
 * is built on), or `undefined` where the runtime has none (another runtime, or a Deno without it).
 *
 * @returns The function, or `undefined`.
 */
export function serveOnConnection(): ServeOnConnection | undefined {
  const deno = (globalThis as { Deno?: { internal?: symbol } }).Deno;
  const internal = deno?.internal;
  if (internal === undefined) return undefined;
  const internals = (deno as Record<symbol, { serveHttpOnConnection?: unknown } | undefined>)[internal];
  const serveOn = internals?.serveHttpOnConnection;
  return typeof serveOn === "function" ? serveOn as ServeOnConnection : undefined;
}

/** What {@linkcode nativeServer} needs of the runtime. */
export interface NativeParts {
  /** Accepts the next connection of the listener. */
  accept(): Promise<TcpConnection>;
  /** Closes the listener. */
  closeListener(): void;
  /**
   * Serves HTTP on an accepted connection with the runtime's own server until `signal` aborts (then the connection
   * is closed at once).
   */
  serveConnection(conn: TcpConnection, signal: AbortSignal, handler: NativeHandler): ServedConnection;
  /** The text of `/proc/self/limits` (throws where there is none). */
  openFileLimits(): string;
}

/** One open connection's timing. */
interface Timed {
  /** When it is late (on the runtime's monotonic clock, `PLATFORM.elapsed()`), `Infinity` when nothing is due. */
  deadline: number;
  /** Requests whose answer is not sent yet. */
  answering: number;
  /**
   * Closes it at once; a request still waiting for its handler is answered `status` first (Deno closes a connection
   * only once its pending request has an answer): 408 when its body was late, 503 when the server closes.
   */
  end(status: 408 | 503): void;
  /** Its native server (undefined until served). */
  served?: ServedConnection;
}

/**
 * Serves `handle` on each connection the listener accepts, natively, under the limits.
 *
 * @param parts The runtime's listener and per-connection server.
 * @param handle The handler; it gets the request and the client's address.
 * @param limits Connection cap and timeouts; the cap defaults to the open-file budget (one descriptor a connection).
 * @param log Where failures are logged.
 * @returns `close(timeoutMs)`: stop accepting, let in-flight requests finish and reach their clients (for up to
 *   `timeoutMs`, default 10 s), close the rest; `active`, the connections open.
 */
export function nativeServer(
  parts: NativeParts,
  handle: (req: Request, clientAddress: string | undefined) => Response | Promise<Response>,
  limits: ConnectionLimits,
  log: ErrorLogger,
): { close(timeoutMs?: number): Promise<void>; readonly active: number } {
  let limitsText: string | undefined;
  try {
    limitsText = parts.openFileLimits();
  } catch {
    limitsText = undefined;
  }
  const defined = Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
  const { maxConnections, headerTimeoutMs, requestTimeoutMs, idleTimeoutMs } = {
    ...DEFAULT_CONNECTION_LIMITS,
    maxConnections: connectionBudget(limitsText, 1) ?? DEFAULT_CONNECTION_LIMITS.maxConnections,
    ...defined,
  };
  const bodyMs = Math.max(requestTimeoutMs, headerTimeoutMs);
  const keptMs = Math.min(idleTimeoutMs, KEEP_ALIVE_MS);
  /** How often deadlines are checked: a late connection is closed up to this much later. */
  const checkEveryMs = Math.max(10, Math.min(1000, keptMs, headerTimeoutMs, requestTimeoutMs));
  const open = new Set<Timed>();
  /** One watch for all connections (a timer each would cost memory and wake the process once per connection). */
  let watch: ReturnType<typeof setInterval> | undefined;
  const checkAll = () => {
    const now = PLATFORM.elapsed();
    for (const timed of open) if (now > timed.deadline) timed.end(408);
  };
  let stopped = false;
  let toldUpgrades = false;

  function take(conn: TcpConnection): void {
    noDelay(conn);
    const aborting = new AbortController();
    /**
     * How to answer each request still waiting for its handler (Deno closes a connection only once its pending
     * requests have an answer); each leaves the set as it is answered.
     */
    const waiting = new Set<(response: Response) => void>();
    const timed: Timed = {
      deadline: PLATFORM.elapsed() + headerTimeoutMs,
      answering: 0,
      end: (status) => {
        aborting.abort();
        for (const answerNow of waiting) answerNow(new Response(null, { status, headers: { connection: "close" } }));
        waiting.clear();
      },
    };
    const address = conn.remoteAddr?.hostname;
    const answered = () => {
      if (--timed.answering === 0) timed.deadline = PLATFORM.elapsed() + keptMs;
    };
    const sent = (response: Response, info: ServeInfo) => {
      if (response.status === 101 && !toldUpgrades) {
        toldUpgrades = true;
        log(
          "Deno cannot switch a natively served connection to a WebSocket: serve with { webSockets: true }",
          undefined,
        );
      }
      if (timed.answering === 1) timed.deadline = Infinity; // its body has been read, or will not be
      info.completed.then(answered, answered);
      return response;
    };
    const handler: NativeHandler = (req, info) => {
      timed.answering++;
      // A body still arriving is timed until the answer (a GET or HEAD, which has none, is not timed at all). By the
      // method: asking for the body would make Deno build its stream.
      const method = req.method;
      timed.deadline = method === "GET" || method === "HEAD" ? Infinity : PLATFORM.elapsed() + bodyMs;
      let answer: Response | Promise<Response>;
      try {
        answer = handle(req, address);
      } catch (error) {
        answered();
        throw error;
      }
      if (answer instanceof Response) return sent(answer, info);
      // Not a race with one promise of the connection's: each request would leave a reaction on it until the end.
      const pending = answer;
      return new Promise<Response>((resolve, reject) => {
        waiting.add(resolve);
        pending.then((response) => {
          waiting.delete(resolve);
          resolve(sent(response, info));
        }, (error) => {
          waiting.delete(resolve);
          answered();
          reject(error);
        });
      });
    };
    open.add(timed);
    watch ??= setInterval(checkAll, checkEveryMs);
    let served: ServedConnection;
    try {
      served = parts.serveConnection(conn, aborting.signal, handler);
    } catch (error) {
      log("serving a connection failed", error);
      closeQuietly(conn);
      forget(timed);
      return;
    }
    timed.served = served;
    served.finished.catch(() => {}).finally(() => forget(timed));
  }

  function forget(timed: Timed): void {
    if (!open.delete(timed)) return;
    if (open.size === 0 && watch !== undefined) {
      clearInterval(watch);
      watch = undefined;
    }
  }

  acceptConnections({ accept: parts.accept, open: () => open.size, take, stopped: () => stopped }, maxConnections, log);
  return {
    get active() {
      return open.size;
    },
    async close(timeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS) {
      stopped = true;
      parts.closeListener();
      // Idle connections close at once, busy ones after their answer: for up to timeoutMs.
      const all = [...open];
      const finished = Promise.all(all.map((timed) => {
        const shutdown = timed.served?.shutdown() ?? Promise.resolve();
        return Promise.all([shutdown.catch(() => {}), timed.served?.finished.catch(() => {})]);
      }));
      let late: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<void>((resolve) => late = setTimeout(resolve, timeoutMs));
      await Promise.race([finished, timedOut]);
      clearTimeout(late);
      for (const timed of [...open]) timed.end(503); // past the timeout: closed now
      await Promise.race([finished, new Promise((r) => setTimeout(r, 100))]);
    },
  };
}
