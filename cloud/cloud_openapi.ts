/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the cloud, generated from
 * the route table and its zod schemas (the ones that validate requests and
 * describe every answer). Public.
 *
 * @module
 */
import { z } from "zod";
import type { JsonSchema } from "../core/contract/mod.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../core/contract/mod.ts";
import { openApiDocument } from "../core/openapi/mod.ts";
import type { Route, RouteDescription } from "../core/http/mod.ts";
import { type CloudSide, defineRoute } from "./routes/mod.ts";

/** How `/v1` callers authenticate, as OpenAPI security schemes. */
const SECURITY = {
  sdk: {
    sdkSecret: { type: "http", scheme: "bearer", bearerFormat: "svcs_…", description: "The project's sdkSecret" },
    project: { type: "apiKey", in: "header", name: "x-svc-project", description: "The project id, prj_…" },
  },
  agent: {
    agentKey: { type: "http", scheme: "bearer", bearerFormat: "svc_live_…", description: "An agent key" },
  },
  none: {},
  metrics: {
    metricsToken: {
      type: "http",
      scheme: "bearer",
      description: "The cloud's --metrics-token; without one, only callers on the cloud's machine are served",
    },
  },
};

/**
 * The cloud's OpenAPI document.
 *
 * @param routes The cloud's route table.
 * @returns The document, as plain JSON.
 */
export function cloudOpenApiDocument(routes: readonly RouteDescription[]): JsonSchema {
  return openApiDocument({
    info: {
      title: "Agent access cloud (/v1)",
      version: PACKAGE_VERSION,
      license: { name: "MIT", identifier: "MIT" },
      description: `The self-hostable cloud of ${PACKAGE_NAME}: intent manifests, violation reports, agent keys, ` +
        "events and agent inboxes, per project.",
    },
    servers: [{ url: "http://127.0.0.1:8787", description: "A local cloud (`serve`'s default address)" }],
    routes,
    security: SECURITY,
  });
}

/**
 * The OpenAPI route.
 *
 * @param routes Every other cloud route.
 * @returns `GET /v1/openapi.json`, its document built once on first request.
 */
export function openApiRoute(routes: readonly RouteDescription[]): Route<CloudSide> {
  const others: RouteDescription[] = [...routes]; // the table may gain this route afterwards
  let text: string | undefined;
  const route: Route<CloudSide> = defineRoute({
    name: "openApi",
    method: "GET",
    path: "/v1/openapi.json",
    auth: "none",
    summary: "This OpenAPI 3.1 document",
    responses: { 200: z.record(z.string(), z.unknown()).describe("An OpenAPI 3.1 document") },
    run() {
      text ??= JSON.stringify(cloudOpenApiDocument([...others, route]));
      return Promise.resolve(new Response(text, { headers: { "content-type": "application/json" } }));
    },
  });
  return route;
}
