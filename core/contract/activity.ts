/**
 * Activity: one record per agent run made with a known key (what agents did), in the form the app keeps, ships to
 * the cloud (`POST /v1/sdk/activity/batch`) and both list. Never a payload, never a secret.
 *
 * @module
 */
import { z } from "zod";
import { storedText } from "./limits.ts";
import { isoTimestamp, MAX_BATCH } from "./wire_values.ts";

/** How a run reached the app. */
export type ActivityVia = "http" | "mcp";

/** How a run ended. */
export type ActivityOutcome = "ok" | "refused" | "invalid" | "failed" | "pending_approval";

/** The outcomes, in the order a dashboard lists them. */
export const ACTIVITY_OUTCOMES: readonly ActivityOutcome[] = ["ok", "refused", "invalid", "failed", "pending_approval"];

/** The prefix of an activity record's id (`act_` + ULID, minted at the app). */
export const ACTIVITY_ID_PREFIX = "act_";

/** One agent run. */
export interface ActivityRecord {
  /** `act_` + ULID, minted at the app: the cloud stores an id once. */
  id: string;
  /** When the run was answered, ISO 8601 with milliseconds. */
  at: string;
  /** The key that ran it. */
  keyId: string;
  /** The key's user. */
  userId: string;
  /** The key's agent id, when it has one. */
  agentId: string | null;
  /** The intent asked for (as sent, when unknown: at most 200 characters). */
  intent: string;
  /** `http` (`POST /svc/agent/run`) or `mcp` (`tools/call`). */
  via: ActivityVia;
  /** How it ended. */
  outcome: ActivityOutcome;
  /** The HTTP status answered (for MCP, the status the same refusal or success has over HTTP). */
  status: number;
  /** The error code of a refusal or failure. */
  code?: string;
  /** Milliseconds from the key check to the answer. */
  ms: number;
  /** The OAuth client's name, when the key came from an OAuth grant. */
  client?: string;
  /** The approval this run asked for or ran on. */
  approvalId?: string;
}

/** The schema of one record as the cloud accepts it. */
export const activityRecordSchema: z.ZodType<ActivityRecord, unknown> = z.object({
  id: z.string().regex(/^act_[0-9A-HJKMNP-TV-Z]{26}$/, "act_ followed by a ULID"),
  at: isoTimestamp,
  keyId: storedText(1, 200),
  userId: storedText(1, 200),
  agentId: storedText(1, 200).nullable(),
  intent: storedText(1, 200),
  via: z.enum(["http", "mcp"]),
  outcome: z.enum(["ok", "refused", "invalid", "failed", "pending_approval"]),
  status: z.number().int().min(100).max(599),
  code: storedText(1, 100).optional(),
  ms: z.number().nonnegative().max(86_400_000),
  client: storedText(1, 200).optional(),
  approvalId: storedText(1, 200).optional(),
});

/** The body of `POST /v1/sdk/activity/batch`: up to 500 records, stored once each by id. */
export const activityBatchSchema: z.ZodType<{ activity: ActivityRecord[] }, unknown> = z.object({
  activity: z.array(activityRecordSchema).min(1).max(MAX_BATCH),
});

/** A page of records, newest first: `GET /svc/activity` and `GET /v1/sdk/activity`. */
export interface ActivityPage {
  /** The records, newest first. */
  activity: ActivityRecord[];
  /** Pass as `cursor` for the next (older) page; `null` at the end. */
  nextCursor: string | null;
}

/** The schema of a page of records (`GET /svc/activity`, `GET /v1/sdk/activity`). */
export const activityPageSchema: z.ZodType<ActivityPage, unknown> = z.object({
  activity: z.array(activityRecordSchema),
  nextCursor: z.string().nullable(),
});
