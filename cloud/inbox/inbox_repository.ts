/**
 * Events and inboxes: what the feature's repository offers, all the SQL of its tables
 * behind it (implemented on libSQL in this folder).
 *
 * @module
 */
import type { CloudStorageMethods } from "../database/mod.ts";

/** Events and inboxes: the repository. */
export type InboxRepository = Pick<
  CloudStorageMethods,
  | "appendEvents"
  | "listInbox"
  | "acknowledge"
  | "purgeAcknowledged"
  | "inboxesFilledAfter"
  | "dataVersion"
  | "inboxBacklog"
  | "peekInbox"
  | "discardInboxItem"
>;
