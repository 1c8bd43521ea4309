/**
 * `POST /v1/sdk/activity/batch`, `GET /v1/sdk/activity` and `GET /v1/sdk/activity/export`: the runs apps ship
 * (stored once per id), listed newest first by cursor, and streamed as NDJSON for a SIEM.
 *
 * @module
 */
import { z } from "zod";
import { activityBatchSchema, activityRecordSchema } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import { activityExportQuery, activityQuery } from "./activity_query.ts";
import type { ActivityService } from "./activity_service.ts";

const defineRoute = cloudRouteDefiner<{ activity: ActivityService }>();

/** The answer to a batch: the ids in the order of the records, and which were already stored. */
const recordedBatch = z.object({
  ok: z.literal(true),
  ids: z.array(z.string()).describe("The records' ids, in the order sent"),
  duplicates: z.array(z.boolean()).describe("Per record, in order: `true` when its id was already stored"),
});

/** A page of records, newest first. */
const activityPage = z.object({
  activity: z.array(activityRecordSchema).describe("The records, newest first (ties by id)"),
  nextCursor: z.string().nullable().describe("Pass as `cursor` for the next (older) page; `null` at the end"),
});

/** The media type of the export. */
const NDJSON = "application/x-ndjson";

/** The activity routes. */
export const activityRoutes = [
  defineRoute({
    name: "recordActivityBatch",
    method: "POST",
    path: "/v1/sdk/activity/batch",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Store up to 500 activity records in one transaction, each id once per project (a retry stores nothing)",
    body: activityBatchSchema,
    responses: { 200: recordedBatch },
    async run({ caller, body }, { activity }) {
      const stored = await activity.record(caller.projectId, body.activity);
      return json({ ok: true, ...stored });
    },
  }),
  defineRoute({
    name: "listActivity",
    method: "GET",
    path: "/v1/sdk/activity",
    auth: "sdk",
    summary: "List what agents did, newest first, by cursor",
    query: activityQuery,
    responses: { 200: activityPage },
    async run({ caller, query }, { activity }) {
      return json(await activity.list(caller.projectId, query));
    },
  }),
  defineRoute({
    name: "exportActivity",
    method: "GET",
    path: "/v1/sdk/activity/export",
    auth: "sdk",
    summary: "Stream the activity as NDJSON, oldest first, one record a line (for a SIEM)",
    query: activityExportQuery,
    mediaType: NDJSON,
    responses: { 200: z.string().describe("One activity record (JSON) a line, oldest first") },
    run({ caller, query }, { activity }) {
      const body = activity.export(caller.projectId, query);
      return Promise.resolve(
        new Response(body, { headers: { "content-type": NDJSON, "cache-control": "no-store" } }),
      );
    },
  }),
];
