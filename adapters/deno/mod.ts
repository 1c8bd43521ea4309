/**
 * The Deno adapter's relay: a TCP server in front of `Deno.serve` that caps connections and times
 * requests (Deno's server has no socket policy of its own).
 *
 * @module
 */
export * from "./connection_guard.ts";
export * from "./relay_server.ts";
export * from "./request_framing.ts";
export * from "./tcp_connection.ts";
