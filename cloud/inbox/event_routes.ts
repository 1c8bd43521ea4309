/**
 * `POST /v1/events` (one event) and `POST /v1/events/batch` (up to 500, stored in
 * one transaction), deduplicated by `eventId` per project; waiting pollers are woken.
 *
 * @module
 */
import type { z } from "zod";
import {
  emitBatchResultSchema,
  emitResultSchema,
  eventBatchSchema,
  postedEventSchema,
} from "../../core/contract/mod.ts";
import { json, singleBody } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { InboxService } from "./inbox_service.ts";

const defineRoute = cloudRouteDefiner<{ inbox: InboxService }>();

/** The body of `POST /v1/events`: one event (a batch there is refused, naming `POST /v1/events/batch`). */
export const eventsBody: z.ZodType<z.output<typeof postedEventSchema>> = singleBody(postedEventSchema, {
  route: "POST /v1/events",
  takes: "one event",
  field: "events",
  batchRoute: "POST /v1/events/batch",
});

/** The event route. */
export const eventRoutes = [
  defineRoute({
    name: "emitEvents",
    method: "POST",
    path: "/v1/events",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Emit one event into an agent's inbox (batches: POST /v1/events/batch)",
    body: eventsBody,
    responses: {
      202: emitResultSchema.describe("The event was queued"),
      200: emitResultSchema.describe("A duplicate of an event already kept: nothing new was queued"),
    },
    async run({ caller, body }, { inbox }) {
      const [{ eventId, inboxId, duplicate }] = await inbox.append(caller.projectId, [body]);
      return json({ ok: true, eventId, inboxId, duplicate }, duplicate ? 200 : 202);
    },
  }),
  defineRoute({
    name: "emitEventBatch",
    method: "POST",
    path: "/v1/events/batch",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Emit up to 500 events into agent inboxes, stored in one transaction; one result per event, in order",
    body: eventBatchSchema,
    responses: {
      202: emitBatchResultSchema.describe("Something new was queued"),
      200: emitBatchResultSchema.describe("Every event was a duplicate of one already kept: nothing new was queued"),
    },
    async run({ caller, body }, { inbox }) {
      const results = await inbox.append(caller.projectId, body.events);
      const queued = results.some((r) => !r.duplicate);
      const answers = results.map(({ eventId, inboxId, duplicate }) => ({ ok: true, eventId, inboxId, duplicate }));
      return json({ ok: true, results: answers }, queued ? 202 : 200);
    },
  }),
];
