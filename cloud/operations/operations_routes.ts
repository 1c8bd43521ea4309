/**
 * `GET /v1/health` (no credential: is the cloud up and its database answering, for load balancers and uptime checks)
 * and `GET /v1/metrics` (the Prometheus text exposition, to a bearer `--metrics-token` or, without one, to callers on
 * this machine).
 *
 * @module
 */
import { z } from "zod";
import { PACKAGE_VERSION } from "../../core/contract/mod.ts";
import { json } from "../../core/http/mod.ts";
import type { ServiceMetrics } from "../../core/metrics/mod.ts";
import { cloudRouteDefiner } from "../routes/mod.ts";

/** The state of the cloud's database, as the health check sees it. */
export type StorageHealth = "ok" | "full" | "unreachable";

/** What the operations routes are given. */
export interface OperationsDeps {
  /** The cloud's metrics. */
  metrics: ServiceMetrics;
  /** The database's state now. */
  storageHealth(): Promise<StorageHealth>;
}

/** The health answer. */
export const cloudHealthSchema: z.ZodType<{ ok: boolean; version: string; storage: StorageHealth }> = z.object({
  ok: z.boolean().describe("Whether the cloud serves: its database answers and has room"),
  version: z.string().describe("The package version the cloud runs"),
  storage: z.enum(["ok", "full", "unreachable"]).describe(
    "`full`: a write failed for want of disk space within the last minute and none succeeded since; " +
      "`unreachable`: the database does not answer",
  ),
}).meta({ id: "CloudHealth" });

const defineRoute = cloudRouteDefiner<OperationsDeps>();

/** The operations routes. */
export const operationsRoutes = [
  defineRoute({
    name: "health",
    method: "GET",
    path: "/v1/health",
    auth: "none",
    summary: "Whether the cloud is up and its database answers (503 when not)",
    responses: { 200: cloudHealthSchema, 503: cloudHealthSchema },
    async run(_input, deps) {
      const storage = await deps.storageHealth();
      const ok = storage === "ok";
      return json({ ok, version: PACKAGE_VERSION, storage }, ok ? 200 : 503, { "cache-control": "no-store" });
    },
  }),
  defineRoute({
    name: "metrics",
    method: "GET",
    path: "/v1/metrics",
    auth: "metrics",
    summary: "The cloud's metrics in the Prometheus text exposition (a --metrics-token, else this machine only)",
    mediaType: "text/plain; version=0.0.4",
    responses: { 200: z.string().describe("Prometheus text exposition format 0.0.4") },
    async run(_input, deps) {
      return new Response(await deps.metrics.text(), {
        headers: { "content-type": deps.metrics.contentType, "cache-control": "no-store" },
      });
    },
  }),
];
