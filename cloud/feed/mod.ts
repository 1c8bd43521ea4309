/**
 * The revocation feed and the long polls' machinery: the wake-up registry (waiters) that inbox and feed polls
 * wait on, the loop of a long poll (`readOrWait`), and the feed's table with the triggers that write its rows in
 * the transaction of the key change (its migration steps).
 *
 * @module
 */
export {
  createInboxWaiters,
  type InboxChanges,
  type InboxSubscription,
  type InboxWaiters,
  type InboxWaitersOptions,
  LOCAL_TICK_MS,
  MAX_POLLS_PER_KEY,
  MAX_POLLS_PER_PROJECT,
  REVOCATION_FEED,
  type RevocationSequence,
  type WatchedStorage,
  watchedStorage,
} from "./waiters.ts";
export { type PollLimits, readOrWait } from "./long_poll.ts";
export { feedMigrationSteps } from "./feed_migrations.ts";
