/**
 * What agents did: the app's record of each agent run made with a known key, written in groups off the request path,
 * and its pages.
 *
 * @module
 */
export { activityPage, cursorPlain, cursorText } from "./activity_page.ts";
export { ACTIVITY_COLUMN_COUNT, ACTIVITY_COLUMNS, activityFromRow, activityValues } from "./activity_rows.ts";
export { activityOff, createActivityLog, DEFAULT_ACTIVITY_RETENTION_DAYS } from "./activity_log.ts";
export type { ActivityLog, ActivityQuery, ActivityRun } from "./activity_log.ts";
