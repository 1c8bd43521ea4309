/**
 * Abuse control for both sides: token-bucket rate limits, refusals coalesced into one report, and
 * refusals counted per client address.
 *
 * @module
 */
export * from "./rate_limiter.ts";
export * from "./refusal_coalescer.ts";
export * from "./refusals_per_address.ts";
