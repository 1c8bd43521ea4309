/**
 * The wire shape of an inbox item, shared by the cloud that delivers it and
 * the agent client that reads it.
 *
 * @module
 */

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
}
