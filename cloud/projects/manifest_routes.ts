/**
 * `PUT` and `GET /v1/sdk/intents`: the project's intent manifest, uploaded by
 * the app (best effort) and read by tooling and the dashboard.
 *
 * @module
 */
import { z } from "zod";
import { scopeName } from "../../core/contract/mod.ts";
import { manifestEntrySchema, manifestSchema } from "../../core/contract/mod.ts";
import { isoTimestamp } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { ProjectService } from "./project_service.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

const defineRoute = cloudRouteDefiner<{ projects: ProjectService }>();

/** The body of `PUT /v1/sdk/intents`. */
export const manifestUpload = z.object({
  intents: z.array(manifestEntrySchema).max(1000).superRefine((intents, ctx) => {
    const seen = new Set<string>();
    intents.forEach((intent, i) => {
      if (seen.has(intent.name)) ctx.addIssue({ code: "custom", path: [i, "name"], message: "Duplicate intent name" });
      seen.add(intent.name);
    });
  }),
  scopes: z.array(scopeName).max(1000).optional(),
});

const stored = z.object({ ok: z.literal(true), count: z.int().min(0), updatedAt: isoTimestamp });

/** The manifest routes. */
export const manifestRoutes = [
  defineRoute({
    name: "putManifest",
    method: "PUT",
    path: "/v1/sdk/intents",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Store the project's intent manifest",
    body: manifestUpload,
    responses: { 200: stored },
    async run({ caller, body }, { projects }) {
      const updatedAt = new Date(PLATFORM.now()).toISOString();
      await projects.putManifest(caller.projectId, {
        intents: body.intents,
        scopes: body.scopes ?? [],
        updatedAt,
      });
      return json({ ok: true, count: body.intents.length, updatedAt });
    },
  }),
  defineRoute({
    name: "getManifest",
    method: "GET",
    path: "/v1/sdk/intents",
    auth: "sdk",
    summary: "Read the manifest (`intents: []` and `updatedAt: null` before the first upload)",
    responses: { 200: manifestSchema },
    async run({ caller }, { projects }) {
      return json(await projects.manifest(caller.projectId));
    },
  }),
];
