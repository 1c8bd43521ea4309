/**
 * The app's link to the cloud: the HTTP client, the outbox of events and violations, the
 * revocation feed follower, the manifest upload and the keys kept by the cloud (cloud mode).
 *
 * @module
 */
export * from "./cloud_client.ts";
export * from "./cloud_keys.ts";
export * from "./manifest_upload.ts";
export * from "./outbox.ts";
export * from "./revocation_follower.ts";
