/**
 * Inbox items: an event delivered to one agent's inbox, as the cloud hands it
 * out and the agent client reads it, and a page of them.
 *
 * @module
 */
import { z } from "zod";
import { isoTimestamp } from "./wire_values.ts";

/** An event delivered to this agent's inbox. */
export interface InboxItem {
  /** Use it to acknowledge. */
  inboxId: number;
  /** The app's id for the event. */
  eventId: string;
  /** Event kind. */
  type: string;
  /** The inbox. */
  agentId: string;
  /** Free-form object. */
  payload: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
  /** How many times the item was handed out, this time included. */
  deliveries: number;
  /** The lease of a poll with `lease`: extend, release or acknowledge the item by it. */
  leaseId?: string;
  /** ISO 8601 of the lease's end, when the item goes back to the queue unless acknowledged, extended or released. */
  leaseExpiresAt?: string;
  /** A replayed item: the inbox id of the acknowledged item it copies (same eventId and payload). */
  replayOf?: number;
}

/** A page of an inbox. */
export interface InboxPage {
  /** Unacknowledged items after the cursor, oldest first. */
  items: InboxItem[];
  /** Pass it as `cursor` next time: the last item's `inboxId`, or the cursor given. */
  nextCursor: number;
}

/** {@linkcode InboxItem}. */
export const inboxItemSchema: z.ZodType<InboxItem> = z.object({
  inboxId: z.int().min(1).describe("Use it to acknowledge"),
  eventId: z.string(),
  type: z.string(),
  agentId: z.string(),
  payload: z.record(z.string(), z.unknown()),
  createdAt: isoTimestamp,
  deliveries: z.int().min(1).describe("How many times the item was handed out, this time included"),
  leaseId: z.string().optional().describe("A poll with `lease`: extend, release or acknowledge the item by it"),
  leaseExpiresAt: isoTimestamp.optional().describe("A poll with `lease`: when the item goes back to the queue"),
  replayOf: z.int().min(1).optional().describe("A replayed item: the inbox id of the acknowledged item it copies"),
});

/** {@linkcode InboxPage}, the answer of the inbox polls. */
export const inboxPageSchema: z.ZodType<InboxPage> = z.object({
  items: z.array(inboxItemSchema),
  nextCursor: z.int().min(0),
});

/** The answer of the acknowledgement routes: how many items were newly acknowledged. */
export const acknowledgedSchema: z.ZodType<{ ok: true; acknowledged: number }> = z.object({
  ok: z.literal(true),
  acknowledged: z.int().min(0),
});
