/**
 * `GET /svc/activity`: what the signed-in user's agents did, newest first, paged by cursor. Only the user's own
 * records are read: another user's key id lists nothing.
 *
 * @module
 */
import { z } from "zod";
import { activityPageSchema, errorEnvelopeSchema, pageSize, storedText } from "../../contract/mod.ts";
import { json } from "../../http/mod.ts";
import { defineRoute } from "./app_side.ts";

/** The query of `GET /svc/activity`. */
const activityQuery = z.object({
  keyId: storedText(1, 200).optional().describe("Only this key's runs (one of the user's keys)"),
  cursor: z.string().min(1).max(500).optional().describe("The `nextCursor` of the page before"),
  limit: pageSize(1),
});

/** `GET /svc/activity`. */
export const activityRoute = defineRoute({
  method: "GET",
  path: "/svc/activity",
  auth: "user",
  summary: "List what the signed-in user's agents did (one record per agent run), newest first, paged by cursor; " +
    "another user's key lists nothing",
  query: activityQuery,
  responses: { 200: activityPageSchema, 400: errorEnvelopeSchema },
  async run({ caller: user, query }, { activity }) {
    return json(await activity.list(user, query));
  },
});
