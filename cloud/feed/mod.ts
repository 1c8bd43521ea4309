/**
 * The revocation feed and the long polls' machinery: the wake-up registry (waiters) that inbox and feed polls
 * wait on, the loop of a long poll (`readOrWait`), and the feed's table with the triggers that write its rows in
 * the transaction of the key change (its migration steps).
 *
 * @module
 */
export { feedMigrationSteps } from "./feed_migrations.ts";
export { readOrWait } from "./long_poll.ts";
export {
  createInboxWaiters,
  MAX_POLLS_PER_KEY,
  MAX_POLLS_PER_PROJECT,
  REVOCATION_FEED,
  watchedStorage,
} from "./waiters.ts";
export type {
  InboxChanges,
  InboxSubscription,
  InboxWaiters,
  InboxWaitersOptions,
  RevocationSequence,
  WatchedStorage,
} from "./waiters.ts";
