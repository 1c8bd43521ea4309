/**
 * The app's link to the cloud: the HTTP client, the outbox of events and violations, the
 * revocation feed follower, the manifest upload, the keys kept by the cloud (cloud mode), the project's
 * policy as the app follows it and the keys' last use mirrored (hybrid mode).
 *
 * @module
 */
export type { CloudAppIdentity, CloudConfig } from "./cloud_call.ts";
export * from "./cloud_client.ts";
export * from "./cloud_keys.ts";
export * from "./emit_events.ts";
export * from "./manifest_upload.ts";
export * from "./outbox.ts";
export * from "./revocation_follower.ts";
export * from "./cloud_policy.ts";
export * from "./last_used.ts";
