/**
 * The app's link to the cloud: the HTTP client, the outbox of events and violations, the
 * revocation feed follower, the manifest upload, the keys kept by the cloud (cloud mode), the project's
 * policy as the app follows it and the keys' last use mirrored (hybrid mode).
 *
 * @module
 */
export { shipApprovalSteps } from "./approval_steps.ts";
export type { CloudConfig } from "./cloud_call.ts";
export { createCloudClient, isTransient } from "./cloud_client.ts";
export type { CloudClient } from "./cloud_client.ts";
export { cloudKeys } from "./cloud_keys.ts";
export { followCloudPolicy } from "./cloud_policy.ts";
export type { CloudPolicy } from "./cloud_policy.ts";
export { emitEvents } from "./emit_events.ts";
export { LAST_USED_EVERY_MS, mirrorLastUsed } from "./last_used.ts";
export { uploadManifest } from "./manifest_upload.ts";
export { createOutbox, OUTBOX_LIMIT, OUTBOX_SET_ASIDE_RETENTION_MS } from "./outbox.ts";
export type { Outbox } from "./outbox.ts";
export { followRevocations } from "./revocation_follower.ts";
export type { RevocationFeedHealth, RevocationFollower } from "./revocation_follower.ts";
