/**
 * Abuse control for both sides: token-bucket rate limits, refusals coalesced into one report, and
 * refusals counted per client address.
 *
 * @module
 */
export { createRateLimiter, rateLimited, rateOf } from "./rate_limiter.ts";
export type { RateDecision, RateLimit, RateLimiter, RateLimits } from "./rate_limiter.ts";
export { createRefusalCoalescer } from "./refusal_coalescer.ts";
export { addressKey, createRefusalsPerAddress } from "./refusals_per_address.ts";
export type { RefusalsPerAddress } from "./refusals_per_address.ts";
