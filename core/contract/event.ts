/**
 * Events as the app posts them to the cloud (`POST /v1/events`), one or a
 * batch, and what the cloud answers for each.
 *
 * @module
 */
import { z } from "zod";
import { agentIdText } from "./agent_keys.ts";
import { boundedJsonObject, PAYLOAD_LIMITS, storedText } from "./limits.ts";
import { MAX_BATCH } from "./wire_values.ts";

/**
 * An event as the app emits it, the one event input of both sides: it goes to the inbox `agentId` names; its
 * `eventId` (the idempotency key: the same id again in a project is a duplicate) is generated, a ULID, when absent.
 */
export interface EventInput {
  /** The app's id for the event; generated when absent. */
  eventId?: string;
  /** Event kind, chosen by the app. */
  type: string;
  /** The inbox: `default`, a user id, or an `agt_<uuid>`. */
  agentId: string;
  /** Free-form object. */
  payload: Record<string, unknown>;
}

/** An event as posted to the cloud: an {@linkcode EventInput} with its `eventId`. */
export interface PostedEvent extends EventInput {
  /** The app's id for the event; the same id again in a project is a duplicate. */
  eventId: string;
}

/** What the cloud answers for one posted event. */
export interface EmitResult {
  /** Always `true`. */
  ok: true;
  /** The event's id. */
  eventId: string;
  /** The inbox item (the first one's, for a duplicate). */
  inboxId: number;
  /** `true` when the `eventId` was already known and nothing new was queued. */
  duplicate: boolean;
}

/** {@linkcode PostedEvent}. */
export const postedEventSchema: z.ZodType<PostedEvent> = z.object({
  eventId: storedText(1, 200),
  type: storedText(1, 200),
  agentId: agentIdText,
  payload: boundedJsonObject(PAYLOAD_LIMITS),
});

/** The body of `POST /v1/events/batch`: up to 500 events, stored in one transaction. */
export const eventBatchSchema: z.ZodType<{ events: PostedEvent[] }> = z.object({
  events: z.array(postedEventSchema).min(1).max(MAX_BATCH),
});

/** {@linkcode EmitResult}. */
export const emitResultSchema: z.ZodType<EmitResult> = z.object({
  ok: z.literal(true),
  eventId: z.string(),
  inboxId: z.int().min(1),
  duplicate: z.boolean(),
});

/** The answer to a batch: one result per event, in order. */
export const emitBatchResultSchema: z.ZodType<{ ok: true; results: EmitResult[] }> = z.object({
  ok: z.literal(true),
  results: z.array(emitResultSchema),
});
