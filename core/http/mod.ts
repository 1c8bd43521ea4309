/**
 * HTTP for both sides: JSON in and out, the router, the route shape and its
 * dispatcher, validation, rate limiting, retry timing and OpenAPI documents.
 *
 * @module
 */
export * from "./backoff.ts";
export * from "./client_address.ts";
export * from "./json.ts";
export * from "./openapi.ts";
export * from "./openapi_components.ts";
export * from "./rate_limiter.ts";
export * from "./route.ts";
export * from "./router.ts";
export * from "./serve_options.ts";
export * from "./validation.ts";
export * from "./dispatch.ts";
export * from "./refusals_per_address.ts";
export * from "./bytes.ts";
export * from "./refusal_coalescer.ts";
