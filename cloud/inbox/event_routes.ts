/**
 * `POST /v1/events`: one event or a batch, stored in one transaction and
 * deduplicated by `eventId` per project; waiting pollers are woken.
 *
 * @module
 */
import { z } from "zod";
import {
  emitBatchResultSchema,
  emitResultSchema,
  eventBatchSchema,
  postedEventSchema,
} from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { defineRoute } from "../routes/mod.ts";

/** The body of `POST /v1/events`: one event, or `{ events: [...] }`. */
export const eventsBody = z.union([postedEventSchema, eventBatchSchema]);

const answer = z.union([emitResultSchema, emitBatchResultSchema]);

/** The event route. */
export const eventRoutes = [
  defineRoute({
    name: "emitEvents",
    method: "POST",
    path: "/v1/events",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Emit one event or a batch into agent inboxes",
    body: eventsBody,
    responses: {
      202: answer.describe("Something new was queued"),
      200: answer.describe("Every event was a duplicate of one already kept: nothing new was queued"),
    },
    async run({ caller, body }, { inbox }) {
      const batch = "events" in body;
      const events = batch ? body.events : [body];
      const results = await inbox.append(caller.projectId, events);
      const queued = results.some((r) => !r.duplicate);
      const answers = results.map(({ eventId, inboxId, duplicate }) => ({ ok: true, eventId, inboxId, duplicate }));
      return json(batch ? { ok: true, results: answers } : answers[0], queued ? 202 : 200);
    },
  }),
];
