/**
 * Violations: what an agent key tried and was refused, in the form the cloud
 * stores and lists.
 *
 * @module
 */
import { z } from "zod";
import { boundedJsonObject, METADATA_LIMITS, storedText } from "./limits.ts";
import { redactSecrets } from "./secrets.ts";
import { isoTimestamp, timestampInput } from "./wire_values.ts";

/** How serious a violation is. */
export type Severity = "info" | "warning" | "severe";

/** The severities, in order. */
export const SEVERITIES: readonly Severity[] = ["info", "warning", "severe"];

/** The kinds the SDK records, with their severity. */
export const VIOLATION_SEVERITY = {
  REVOKED_KEY: "warning",
  FORBIDDEN_SCOPE: "warning",
  UNKNOWN_INTENT: "info",
  INTENT_VALIDATION_ERROR: "info",
  RATE_LIMITED: "info",
  AUTO_REVOKED: "severe",
} as const satisfies Record<string, Severity>;

/** A kind the SDK records. */
export type ViolationKind = keyof typeof VIOLATION_SEVERITY;

/** A stored violation, as listed. */
export interface Violation {
  /** UUID. */
  id: string;
  /** The agent key involved. */
  keyId: string;
  /** The key's owner, when known. */
  userId: string | null;
  /** The intent asked for, when any. */
  intent: string | null;
  /** What happened, such as `FORBIDDEN_SCOPE`. */
  kind: string;
  /** `info`, `warning` or `severe`. */
  severity: Severity;
  /** Human-readable text. */
  message: string | null;
  /** Anything else worth keeping. */
  metadata: Record<string, unknown>;
  /** ISO 8601 with milliseconds. */
  createdAt: string;
}

/** A violation as reported by an app: the body of `POST /v1/sdk/violations`, `{ violation: … }`. */
export interface ViolationReport {
  /** The agent key involved (UUID). */
  apiKeyId: string;
  /** The key's owner. */
  userId?: string | null;
  /** The intent asked for. */
  intent?: string | null;
  /** What happened, such as `FORBIDDEN_SCOPE`. */
  kind: string;
  /** `info`, `warning` or `severe`. */
  severity: Severity;
  /** Human-readable text. */
  message?: string | null;
  /** Anything else worth keeping. */
  metadata?: Record<string, unknown> | null;
  /** When it happened (ISO 8601); default: the time of the report. */
  at?: string | null;
}

/** {@linkcode Severity}. */
export const severitySchema: z.ZodType<Severity> = z.enum(["info", "warning", "severe"]);

/** The body of `POST /v1/sdk/violations`. */
export const violationReportSchema: z.ZodType<{ violation: ViolationReport }, unknown> = z.object({
  violation: z.object({
    apiKeyId: z.uuid(),
    userId: storedText(1, 200).nullish(),
    intent: storedText(1, 200).nullish(),
    kind: storedText(1, 100),
    severity: severitySchema,
    message: storedText(0, 2000).nullish(),
    metadata: boundedJsonObject(METADATA_LIMITS).nullish(),
    at: timestampInput.nullish(),
  }),
});

/** {@linkcode Violation}, as stored and listed. */
export const violationSchema: z.ZodType<Violation> = z.object({
  id: z.uuid(),
  keyId: z.string(),
  userId: z.string().nullable(),
  intent: z.string().nullable(),
  kind: z.string(),
  severity: severitySchema,
  message: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: isoTimestamp,
});

/** A page of violations, newest first, and the count of every match: the answer of `GET /v1/sdk/violations`. */
export const violationPageSchema: z.ZodType<{ violations: Violation[]; total: number }> = z.object({
  violations: z.array(violationSchema),
  total: z.int().min(0),
});

/**
 * Builds a violation record for one refusal.
 *
 * @param kind What happened.
 * @param fields The key, user, intent, message and metadata.
 * @returns The record, with a fresh id and the current time.
 */
export function newViolation(
  kind: ViolationKind,
  fields: {
    keyId: string;
    userId: string | null;
    intent?: string | null;
    message: string;
    metadata?: Record<string, unknown>;
  },
): Violation {
  // The intent, message and metadata echo what the agent sent: never store a secret it put there.
  const intent = fields.intent == null ? null : redactSecrets(fields.intent);
  return {
    id: crypto.randomUUID(),
    keyId: fields.keyId,
    userId: fields.userId,
    intent,
    kind,
    severity: VIOLATION_SEVERITY[kind],
    message: redactSecrets(fields.message),
    metadata: fields.metadata ? JSON.parse(redactSecrets(JSON.stringify(fields.metadata))) : {},
    createdAt: new Date().toISOString(),
  };
}

/** The columns a violation is stored in, on both sides, in the order of {@linkcode violationValues}. */
export const VIOLATION_COLUMNS = "id, key_id, user_id, intent, kind, severity, message, metadata, created_at";

/**
 * A violation's values for {@linkcode VIOLATION_COLUMNS}.
 *
 * @param v The violation.
 * @returns The values, metadata as JSON.
 */
export function violationValues(v: Violation): (string | null)[] {
  return [v.id, v.keyId, v.userId, v.intent, v.kind, v.severity, v.message, JSON.stringify(v.metadata), v.createdAt];
}
