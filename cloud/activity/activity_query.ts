/**
 * The filters and page of an activity query, shared by `GET /v1/sdk/activity`, the export and the dashboard's
 * Activity page: the cursor is opaque on the wire (the last record's time and id), so a page stays where it was
 * while newer records arrive.
 *
 * @module
 */
import { z } from "zod";
import { ACTIVITY_OUTCOMES, type ActivityOutcome } from "../../core/contract/mod.ts";
import { pageSize, storedText, timestampInput } from "../../core/contract/mod.ts";
import { cursorPlain, cursorText } from "../../core/activity/mod.ts";

/** Where a page starts: the record the previous page ended with (newest first: the next page is older). */
export interface ActivityCursor {
  /** That record's time. */
  at: string;
  /** That record's id (ties of time are ordered by id). */
  id: string;
}

/** The filters of a list or an export. */
export interface ActivityFilters {
  /** Only this key's. */
  keyId?: string;
  /** Only this user's. */
  userId?: string;
  /** Only this intent. */
  intent?: string;
  /** Only this outcome. */
  outcome?: ActivityOutcome;
  /** Only at or after this time (ISO 8601, inclusive). */
  since?: string;
  /** Only before this time (ISO 8601, exclusive). */
  until?: string;
  /** Only records whose key id or user id is this (the dashboard's search). */
  who?: string;
}

/** A page of a list: its filters, where it starts and how many records. */
export interface ActivityQuery extends ActivityFilters {
  /** The record the previous page ended with; none for the newest page. */
  cursor?: ActivityCursor;
  /** Records per page. */
  limit: number;
}

/**
 * A cursor as the wire carries it (base64url of the time and the id).
 *
 * @param cursor The last record of a page.
 * @returns The opaque text.
 */
export function encodeCursor(cursor: ActivityCursor): string {
  return cursorText(`${cursor.at} ${cursor.id}`);
}

/**
 * Reads an opaque cursor.
 *
 * @param text The cursor as sent.
 * @returns The cursor, or `null` when it is not one this cloud gave.
 */
export function decodeCursor(text: string): ActivityCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  const plain = cursorPlain(text);
  if (plain === null) return null;
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (act_[0-9A-HJKMNP-TV-Z]{26})$/.exec(plain);
  return match === null ? null : { at: match[1], id: match[2] };
}

/** The `cursor` of a query string: a cursor a previous page answered. */
const cursorInput: z.ZodType<ActivityCursor, unknown> = z.string().transform((text, ctx) => {
  const cursor = decodeCursor(text);
  if (cursor === null) {
    ctx.addIssue({ code: "custom", message: "Must be a nextCursor a previous page answered" });
    return z.NEVER;
  }
  return cursor;
});

/** The time filters of a list and an export. */
const range = {
  since: timestampInput.optional().describe("Only at or after this time (inclusive)"),
  until: timestampInput.optional().describe("Only before this time (exclusive)"),
};

/** The query of `GET /v1/sdk/activity`. */
export const activityQuery: z.ZodType<Omit<ActivityQuery, "who">, unknown> = z.object({
  keyId: storedText(1, 200).optional().describe("Only this key's"),
  userId: storedText(1, 200).optional().describe("Only this user's"),
  intent: storedText(1, 200).optional().describe("Only this intent"),
  outcome: z.enum(ACTIVITY_OUTCOMES as [ActivityOutcome, ...ActivityOutcome[]]).optional().describe(
    "Only this outcome",
  ),
  ...range,
  cursor: cursorInput.optional().describe("The nextCursor of the previous page (opaque)"),
  limit: pageSize(1),
});

/** The query of `GET /v1/sdk/activity/export`. */
export const activityExportQuery: z.ZodType<Pick<ActivityFilters, "since" | "until">, unknown> = z.object(range);
