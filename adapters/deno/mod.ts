/**
 * The Deno adapter's relay: a TCP server in front of `Deno.serve` that caps connections and times
 * requests (Deno's server has no socket policy of its own).
 *
 * @module
 */
export { relayServer } from "./relay_server.ts";
export type { TcpConnection } from "./tcp_connection.ts";
