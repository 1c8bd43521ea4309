/**
 * `GET /v1/sdk/apps`: the project's connected apps; `POST /v1/sdk/keys/used`:
 * the `lastUsedAt` of keys used at a hybrid app, mirrored to the cloud.
 *
 * @module
 */
import { z } from "zod";
import { isoTimestamp, MAX_BATCH, timestampInput } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";
import type { AppService } from "./app_service.ts";

const defineRoute = cloudRouteDefiner<{ apps: AppService }>();

/** One app instance as `GET /v1/sdk/apps` answers it. */
export const connectedAppSchema = z.object({
  instanceId: z.string().describe("A ULID the app instance chose (x-svc-instance)"),
  label: z.string().describe("The app's label (x-svc-app-label), at most 100 characters; empty when none"),
  mode: z.enum(["hybrid", "cloud"]).nullable().describe("How the app runs (x-svc-mode), or null when it did not say"),
  sdkVersion: z.string().nullable().describe("The SDK version (x-svc-sdk-version), or null"),
  firstSeenAt: isoTimestamp,
  lastSeenAt: isoTimestamp,
  cursor: z.number().int().describe("The `after` of its latest recorded feed poll"),
  outboxDepth: z.number().int().min(0).nullable().describe(
    "The items its outbox held for the cloud at its latest recorded poll (x-svc-outbox-depth), or null",
  ),
  state: z.enum(["following", "stale", "rotated_out"]).describe(
    "following; stale: not seen for over a minute; rotated_out: last seen before the latest secret rotation",
  ),
});

/** The answer of `GET /v1/sdk/apps`. */
export const connectedAppsSchema = z.object({ apps: z.array(connectedAppSchema) });

/** The body of `POST /v1/sdk/keys/used`. */
export const keyUsesBody = z.object({
  keys: z.array(z.object({ id: z.string().min(1).max(200), lastUsedAt: timestampInput })).min(1).max(MAX_BATCH),
});

/** The answer of `POST /v1/sdk/keys/used`. */
export const keyUsesSchema = z.object({
  ok: z.literal(true),
  updated: z.number().int().describe("Keys whose lastUsedAt moved forward"),
});

/** The connected apps' routes. */
export const appRoutes = [
  defineRoute({
    name: "listApps",
    method: "GET",
    path: "/v1/sdk/apps",
    auth: "sdk",
    summary: "List the app instances that follow the project's revocation feed",
    responses: { 200: connectedAppsSchema },
    async run({ caller }, { apps }) {
      return json({ apps: await apps.list(caller.projectId) });
    },
  }),
  defineRoute({
    name: "mirrorKeyUses",
    method: "POST",
    path: "/v1/sdk/keys/used",
    auth: "sdk",
    limit: "projectWrites",
    summary: "Mirror the lastUsedAt of keys used at a hybrid app (never moves it back)",
    body: keyUsesBody,
    responses: { 200: keyUsesSchema },
    async run({ caller, body }, { apps }) {
      return json({ ok: true, updated: await apps.mirrorKeyUses(caller.projectId, body.keys) });
    },
  }),
];
