/**
 * `GET /svc/health`: whether the app's agent routes serve, its mode and the state of its link to the cloud. No
 * credentials (a load balancer or a smoke test calls it); it names no endpoint and holds no secret.
 *
 * @module
 */
import { z } from "zod";
import { appHealthSchema, errorEnvelopeSchema } from "../../contract/mod.ts";
import { json } from "../../http/mod.ts";
import { defineRoute } from "./app_side.ts";

/** The health route: `200` while the agent routes serve, `503` while they refuse. */
export const healthRoute = defineRoute({
  method: "GET",
  path: "/svc/health",
  auth: "none",
  summary: "Whether the agent routes serve (503 while they refuse: the revocation feed stale, or the cloud refusing " +
    "the app's credentials), the mode and the state of the link to the cloud (null in local mode)",
  // 503: the health of an app that refuses, or the envelope of one whose storage cannot be opened.
  responses: { 200: appHealthSchema, 503: z.union([appHealthSchema, errorEnvelopeSchema]) },
  run(_input, { link }) {
    const health = link.health();
    return Promise.resolve(json(health, health.ok ? 200 : 503, { "cache-control": "no-store" }));
  },
});
