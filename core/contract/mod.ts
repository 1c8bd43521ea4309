/**
 * What both sides share: the error model and its envelope, agent keys and
 * secrets, violations, inbox items, the manifest and the limits of stored values.
 *
 * @module
 */
export * from "./activity.ts";
export * from "./agent_keys.ts";
export * from "./approval.ts";
export * from "./app_health.ts";
export * from "./auto_revoke.ts";
export * from "./closest_name.ts";
export * from "./error_envelope.ts";
export * from "./event.ts";
export * from "./inbox_item.ts";
export * from "./json_schema.ts";
export * from "./key_responses.ts";
export * from "./limits.ts";
export * from "./manifest.ts";
export * from "./revocation.ts";
export * from "./secrets.ts";
export * from "./sha256.ts";
export * from "./version.ts";
export * from "./violation.ts";
export * from "./wire_values.ts";
