/**
 * What agents did: the app's record of each agent run made with a known key, written in groups off the request path,
 * and its pages.
 *
 * @module
 */
export { activityPage } from "./activity_page.ts";
export { activityOff, createActivityLog, DEFAULT_ACTIVITY_RETENTION_DAYS } from "./activity_log.ts";
export type { ActivityLog, ActivityQuery, ActivityRun } from "./activity_log.ts";
