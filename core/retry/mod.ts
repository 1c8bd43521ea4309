/**
 * Retrying for both sides: exponential backoff with jitter, an abortable wait, a run of failures and a retry loop.
 *
 * @module
 */
export { sleep } from "./backoff.ts";
export type { Sleep } from "./backoff.ts";
export { Backoff, retry } from "./retry.ts";
