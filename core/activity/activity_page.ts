/**
 * A page of the app's own records (`GET /svc/activity` in local and hybrid modes), newest first, and its cursor:
 * opaque to the client, it names the last record of the page before (records are listed by id: an id is `act_` + a
 * ULID, which sorts by time).
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import type { ActivityPage, ActivityRecord } from "../contract/mod.ts";
import type { ActivityQuery } from "./activity_log.ts";

/** Reads a user's records, newest first, older than `before` when given. */
export type SelectActivity = (
  query: { userId: string; keyId?: string; before?: string; limit: number },
) => Promise<ActivityRecord[]>;

/**
 * A page of a user's records, with the cursor of the next one.
 *
 * @param select Reads the records.
 * @param userId The signed-in user.
 * @param query The key, the cursor (`400 VALIDATION_ERROR` when this app did not hand it out) and the page size.
 * @returns The page; `nextCursor` `null` at the end.
 */
export async function activityPage(
  select: SelectActivity,
  userId: string,
  query: ActivityQuery,
): Promise<ActivityPage> {
  const before = query.cursor === undefined ? undefined : activityAfter(query.cursor);
  const rows = await select({ userId, keyId: query.keyId, before, limit: query.limit + 1 });
  const activity = rows.slice(0, query.limit);
  const more = rows.length > query.limit && activity.length > 0;
  return { activity, nextCursor: more ? activityCursor(activity[activity.length - 1].id) : null };
}

/** An activity id. */
const ACTIVITY_ID = /^act_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The cursor after a record.
 *
 * @param id The last record's id.
 * @returns The opaque cursor.
 */
export function activityCursor(id: string): string {
  return cursorText(id);
}

/**
 * The record id a cursor names, or `400 VALIDATION_ERROR` for a cursor this app did not hand out.
 *
 * @param cursor The cursor as sent.
 * @returns The id: the next page holds the records older than it.
 */
export function activityAfter(cursor: string): string {
  const id = cursorPlain(cursor);
  if (id !== null && ACTIVITY_ID.test(id)) return id;
  throw new SvcError("VALIDATION_ERROR", "Invalid request", {
    details: { issues: [{ path: "cursor", message: "Not a cursor this app handed out" }] },
  });
}

/**
 * A page cursor's opaque form, the app's and the cloud's alike: base64url of its plain text, without padding.
 *
 * @param plain What the cursor names (ASCII).
 * @returns The opaque text.
 */
export function cursorText(plain: string): string {
  return btoa(plain).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

/**
 * A page cursor's plain text, back from {@linkcode cursorText}.
 *
 * @param text The cursor as sent.
 * @returns The plain text, or `null` when it is not base64.
 */
export function cursorPlain(text: string): string | null {
  try {
    return atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
}
