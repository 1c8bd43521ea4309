/**
 * Violations: what an agent key tried and was refused, in the form the cloud
 * stores and lists.
 *
 * @module
 */
import { z } from "zod";
import { boundedJsonObject, jsonDepth, METADATA_LIMITS, storedText } from "./limits.ts";
import { redactSecrets } from "./secrets.ts";
import { isoTimestamp, MAX_BATCH, timestampInput } from "./wire_values.ts";
import { PLATFORM } from "../platform/mod.ts";

/** How serious a violation is. */
export type Severity = "info" | "warning" | "severe";

/** The severities, in order. */
export const SEVERITIES: readonly Severity[] = ["info", "warning", "severe"];

/** The kinds the SDK records, with their severity. */
export const VIOLATION_SEVERITY = {
  REVOKED_KEY: "warning",
  EXPIRED_KEY: "info",
  FORBIDDEN_SCOPE: "warning",
  UNKNOWN_INTENT: "info",
  INTENT_VALIDATION_ERROR: "info",
  RATE_LIMITED: "info",
  AUTO_REVOKED: "severe",
  OAUTH_TOKEN_REPLAYED: "severe",
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
  /**
   * The app's id for this report (1..200 characters; the SDK sends its violation's id): the cloud stores a
   * report id once per project, and answers a repeat as the first with `duplicate: true`. Absent: never
   * deduplicated.
   */
  reportId?: string | null;
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

/** How long violations are kept by default, at the cloud and in the app: 30 days. */
export const DEFAULT_VIOLATION_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** The most violations the app sends in one batched report (the cloud's batch route takes up to 500). */
export const VIOLATION_BATCH_LIMIT = 100;
/** The longest intent, user id and message a report may carry, in characters. */
export const VIOLATION_TEXT_LIMITS = { userId: 200, intent: 200, kind: 100, message: 2000 } as const;

const report = z.object({
  reportId: storedText(1, 200).nullish(),
  apiKeyId: z.uuid(),
  userId: storedText(1, VIOLATION_TEXT_LIMITS.userId).nullish(),
  intent: storedText(1, VIOLATION_TEXT_LIMITS.intent).nullish(),
  kind: storedText(1, VIOLATION_TEXT_LIMITS.kind),
  severity: severitySchema,
  message: storedText(0, VIOLATION_TEXT_LIMITS.message).nullish(),
  metadata: boundedJsonObject(METADATA_LIMITS).nullish(),
  at: timestampInput.nullish(),
});

/** The body of `POST /v1/sdk/violations`: one report. */
export const violationReportSchema: z.ZodType<{ violation: ViolationReport }, unknown> = z.object({
  violation: report,
});

/** The body of `POST /v1/sdk/violations/batch`: up to 500 reports, stored together. */
export const violationBatchSchema: z.ZodType<{ violations: ViolationReport[] }, unknown> = z.object({
  violations: z.array(report).min(1).max(MAX_BATCH),
});

/**
 * A stored violation as an app reports it to the cloud.
 *
 * @param v The violation.
 * @returns The report.
 */
export function toViolationReport(v: Violation): ViolationReport {
  return {
    reportId: v.id,
    apiKeyId: v.keyId,
    userId: v.userId ?? undefined,
    intent: v.intent ?? undefined,
    kind: v.kind,
    severity: v.severity,
    message: v.message ?? undefined,
    metadata: v.metadata,
    at: v.createdAt,
  };
}

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
 * Builds a violation record for one refusal. Everything the agent chose (the
 * intent, the message, the metadata) is redacted and cut to the cloud's limits
 * here, when the record is made, so that no report is ever refused for its size
 * or its characters (an agent could otherwise hide its violations, or send one
 * that a proxy refuses).
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
  const intent = fields.intent == null ? null : fitText(fields.intent, VIOLATION_TEXT_LIMITS.intent);
  return {
    id: PLATFORM.randomUUID(),
    keyId: fields.keyId,
    userId: fields.userId === null ? null : fitText(fields.userId, VIOLATION_TEXT_LIMITS.userId),
    intent: intent === "" ? null : intent,
    kind,
    severity: VIOLATION_SEVERITY[kind],
    message: fitText(fields.message, VIOLATION_TEXT_LIMITS.message),
    metadata: fields.metadata ? fitMetadata(fields.metadata) : {},
    createdAt: new Date(PLATFORM.now()).toISOString(),
  };
}

/** The most distinct intents a summary of repeated refusals names, and the characters kept of each. */
export const REPEATED_INTENTS = { max: 5, chars: 100 } as const;

/**
 * The summary of a window of repeated refusals: the first one's key, user, kind
 * and intent, with the number of repeats after it in `metadata.repeats` and, when
 * given, the first few distinct intents of the window in `metadata.intents`
 * (at most {@linkcode REPEATED_INTENTS}`.max`, each cut to `.chars` characters).
 *
 * @param first The violation recorded when the window opened.
 * @param repeats Refusals after it in the window.
 * @param since When the window opened (ISO 8601).
 * @param intents Distinct intents asked for in the window, the first one's first.
 * @returns A new record, made now.
 */
export function repeatedViolation(
  first: Violation,
  repeats: number,
  since: string,
  intents: readonly string[] = [],
): Violation {
  const named = intents.slice(0, REPEATED_INTENTS.max).map((i) => fitText(i, REPEATED_INTENTS.chars));
  return {
    ...first,
    id: PLATFORM.randomUUID(),
    message: `Repeated ${repeats} more times since ${since}`,
    metadata: named.length > 1
      ? { repeats, since, first: first.id, intents: named }
      : { repeats, since, first: first.id },
    createdAt: new Date(PLATFORM.now()).toISOString(),
  };
}

/** Characters of an oversized metadata object kept, as JSON text, in its place. */
const METADATA_PREVIEW = 2000;

/** Redacts secrets, makes the text storable (no NUL, no lone surrogate) and cuts it to `max` characters. */
function fitText(text: string, max: number): string {
  // deno-lint-ignore no-control-regex -- NUL is exactly what must go
  const storable = (s: string) => s.replace(/\u0000|\p{Surrogate}/gu, "\ufffd");
  // Cut, then clean again: a cut between the halves of a surrogate pair leaves a lone one.
  return storable(storable(redactSecrets(text)).slice(0, max));
}

/** Redacts secrets; metadata over the cloud's size or depth becomes `{ truncated: true, preview }`. */
function fitMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const text = redactSecrets(JSON.stringify(metadata));
  const parsed = JSON.parse(text);
  const fits = jsonDepth(parsed, METADATA_LIMITS.maxDepth) <= METADATA_LIMITS.maxDepth &&
    new TextEncoder().encode(text).byteLength <= METADATA_LIMITS.maxBytes;
  return fits ? parsed : { truncated: true, preview: fitText(text, METADATA_PREVIEW) };
}
