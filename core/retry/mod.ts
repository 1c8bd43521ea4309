/**
 * Retrying for both sides: exponential backoff with jitter, an abortable wait, a run of failures and a retry loop.
 *
 * @module
 */
export * from "./backoff.ts";
export * from "./retry.ts";
