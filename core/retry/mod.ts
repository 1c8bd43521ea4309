/**
 * Retrying for both sides: exponential backoff with jitter and an abortable wait.
 *
 * @module
 */
export * from "./backoff.ts";
