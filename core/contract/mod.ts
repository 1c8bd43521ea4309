/**
 * What both sides share: the error model and its envelope, agent keys and
 * secrets, violations, inbox items, the manifest and the limits of stored values.
 *
 * @module
 */
export { ACTIVITY_OUTCOMES, activityBatchSchema, activityRecordSchema } from "./activity.ts";
export type { ActivityOutcome, ActivityPage, ActivityRecord, ActivityVia } from "./activity.ts";
export {
  agentIdTaken,
  agentIdText,
  checkAgentId,
  isExpired,
  isRevocationDue,
  keyAt,
  keyLifetimePolicySchema,
  keyNoLongerWorks,
  keyRefusal,
  MAX_KEY_LIFETIME_DAYS,
  mintAgentKey,
  mintKeyBody,
  mintKeyFields,
  ONE_LIFETIME,
  oneLifetime,
  publicKey,
  scopeName,
} from "./agent_keys.ts";
export type {
  AgentIdKind,
  KeyLifetimePolicy,
  KeyRecord,
  KeyRefusal,
  KeyRefusalReason,
  PublicKey,
} from "./agent_keys.ts";
export { appHealthSchema } from "./app_health.ts";
export type { AppHealth, CloudLinkState } from "./app_health.ts";
export { autoRevokedViolation, autoRevokePolicySchema, countedBy, countsToward } from "./auto_revoke.ts";
export type { AutoRevokePolicy } from "./auto_revoke.ts";
export { closestField, closestName } from "./closest_name.ts";
export { errorEnvelopeSchema } from "./error_envelope.ts";
export { emitBatchResultSchema, emitResultSchema, eventBatchSchema, postedEventSchema } from "./event.ts";
export type { EmitResult, EventInput, PostedEvent } from "./event.ts";
export { acknowledgedSchema, inboxPageSchema } from "./inbox_item.ts";
export type { InboxItem } from "./inbox_item.ts";
export { toJsonSchema } from "./json_schema.ts";
export type { JsonSchema } from "./json_schema.ts";
export { keyListSchema, keyVerificationSchema, mintedKeySchema, okSchema, revokedKeySchema } from "./key_responses.ts";
export { jsonDepth, storedText } from "./limits.ts";
export { agentManifestSchema, manifestEntrySchema, manifestSchema } from "./manifest.ts";
export type { Manifest, ManifestEntry } from "./manifest.ts";
export { revocationPageSchema } from "./revocation.ts";
export type { Revocation, RevocationPage, RevocationReason } from "./revocation.ts";
export {
  AGENT_KEY_PREFIX,
  bearerToken,
  hashSecret,
  KEY_START_LENGTH,
  mintSecret,
  redactSecrets,
  SDK_SECRET_PREFIX,
  timingSafeEqual,
  unauthorized,
} from "./secrets.ts";
export { sha256Hex } from "./sha256.ts";
export { PACKAGE_NAME, PACKAGE_VERSION } from "./version.ts";
export {
  DEFAULT_VIOLATION_RETENTION_MS,
  newViolation,
  REPEATED_INTENTS,
  repeatedViolation,
  SEVERITIES,
  severitySchema,
  toViolationReport,
  VIOLATION_BATCH_LIMIT,
  VIOLATION_SEVERITY,
  violationBatchSchema,
  violationPageSchema,
  violationReportSchema,
} from "./violation.ts";
export type { Severity, Violation, ViolationKind, ViolationReport } from "./violation.ts";
export { isoTimestamp, MAX_BATCH, pageSize, queryInteger, timestampInput, waitSeconds } from "./wire_values.ts";
