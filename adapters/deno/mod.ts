/**
 * The Deno adapter's servers: its own connections served natively by Deno's HTTP server under a cap and timeouts,
 * or, where Deno cannot serve a connection of one's own, a relay in front of `Deno.serve` (Deno's server has no socket
 * policy of its own).
 *
 * @module
 */
export { nativeServer, serveOnConnection } from "./native_server.ts";
export { relayServer } from "./relay_server.ts";
export type { TcpConnection } from "./tcp_connection.ts";
