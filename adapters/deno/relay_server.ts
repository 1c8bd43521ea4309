/**
 * A server behind the connection guard, for runtimes whose own server has no
 * socket policy (Deno): the runtime's listener accepts, {@linkcode guardConnections}
 * relays each connection to the runtime's server on a loopback port, and that
 * server is started again whenever it stops with an error (Deno's, when file
 * descriptors run out). The connection cap follows the open-file limit. The
 * inner server sees every client as 127.0.0.1: it asks the relay for the real
 * address by the port its peer connected from, and tells it by the same port
 * when it switched a connection to a WebSocket.
 *
 * @module
 */
import { guardConnections, type RelayedConnections } from "./connection_guard.ts";
import type { ConnectionLimits } from "../../core/http/mod.ts";
import type { TcpConnection } from "./tcp_connection.ts";
import type { ErrorLogger } from "../../core/logging/mod.ts";
import { connectionBudget, DEFAULT_SHUTDOWN_TIMEOUT_MS } from "../../core/http/mod.ts";

/** A started server. */
export interface StartedServer {
  /** The port it listens on. */
  port: number;
  /** Settles when it stops; rejects when it stops on an error. */
  finished: Promise<void>;
  /** Stops it, letting in-flight requests finish. */
  shutdown(): Promise<void>;
}

/** A server kept running by {@linkcode keepServing}. */
export interface KeptServer {
  /** The port of the current server. */
  readonly port: number;
  /** Shuts the current server down for good. */
  shutdown(): Promise<void>;
}

/**
 * Starts a server and starts it again whenever it stops with an error.
 *
 * @param start Starts the server (throws when it cannot).
 * @param log Where restarts are logged.
 * @param retryMs Wait before starting again. Default 250.
 * @returns The kept server.
 */
export function keepServing(start: () => StartedServer, log: ErrorLogger, retryMs = 250): KeptServer {
  let current: StartedServer;
  let stopping = false;
  const run = (): void => {
    try {
      current = start();
    } catch (error) {
      log("the server could not start again; retrying", error);
      setTimeout(run, retryMs);
      return;
    }
    current.finished.catch((error) => {
      if (stopping) return;
      log("the server stopped on an error; starting it again", error);
      setTimeout(run, retryMs);
    });
  };
  run();
  return {
    get port() {
      return current.port;
    },
    shutdown() {
      stopping = true;
      return current.shutdown();
    },
  };
}

/** What {@linkcode relayServer} needs of the runtime. */
export interface RelayParts {
  /** Accepts the next connection of the public listener. */
  accept(): Promise<TcpConnection>;
  /** Closes the public listener. */
  closeListener(): void;
  /** Connects to the inner server's port on the loopback interface. */
  connect(port: number): Promise<TcpConnection>;
  /**
   * Starts the inner server on a free loopback port.
   *
   * @param relayed The client's address behind a relayed connection, and where to say it was upgraded,
   *   by the port the server sees it come from.
   */
  start(relayed: RelayedConnections): StartedServer;
  /** The text of `/proc/self/limits` (throws where there is none). */
  openFileLimits(): string;
}

/**
 * Relays the listener's connections to a kept inner server under the limits.
 *
 * @param parts The runtime's listener, connector and server.
 * @param limits Connection cap and timeouts; the cap defaults to the open-file budget.
 * @param log Where failures and restarts are logged.
 * @returns `close(timeoutMs)`: stop accepting, let in-flight requests finish and reach their clients (for up to
 *   `timeoutMs`, default 10 s), close the rest.
 */
export function relayServer(
  parts: RelayParts,
  limits: ConnectionLimits,
  log: ErrorLogger,
): { close(timeoutMs?: number): Promise<void> } {
  // Asked per request, once the guard exists (the inner server takes its first connection after that).
  const relayed: RelayedConnections = {
    clientAddressOf: (relayPort) => guard.clientAddressOf(relayPort),
    upgraded: (relayPort) => guard.upgraded(relayPort),
  };
  const inner = keepServing(() => parts.start(relayed), log);
  let limitsText: string | undefined;
  try {
    limitsText = parts.openFileLimits();
  } catch {
    limitsText = undefined;
  }
  const guard = guardConnections(parts.accept, () => parts.connect(inner.port), {
    maxConnections: connectionBudget(limitsText, 3), // the client's, the relay's, the server's
    ...limits,
  }, log);
  return {
    async close(timeoutMs = DEFAULT_SHUTDOWN_TIMEOUT_MS) {
      guard.stopAccepting();
      parts.closeListener();
      // In-flight requests finish, idle connections close, a busy one after its answer: for up to timeoutMs.
      let late: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<boolean>((resolve) => late = setTimeout(() => resolve(true), timeoutMs));
      const shutdown = inner.shutdown().then(() => false);
      shutdown.catch(() => {}); // past the timeout it may end later, or never (a handler that never answers)
      const overdue = await Promise.race([shutdown, timedOut]);
      clearTimeout(late);
      // What they answered reaches the clients; past the timeout, every connection still open is closed now.
      await guard.close(overdue ? 0 : Math.min(1000, timeoutMs));
    },
  };
}
