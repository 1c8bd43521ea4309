/**
 * `GET /v1/openapi.json`: the OpenAPI 3.1 document of the cloud, generated from
 * the route table and its zod schemas (the ones that validate requests). Public.
 *
 * @module
 */
import { openApiDocument } from "../../core/http/openapi.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../core/contract/version.ts";
import type { RouteHandlers } from "../route_handler.ts";
import { cloudRoutes } from "../routes.ts";

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
};

let text: string | undefined;

/**
 * The cloud's OpenAPI document.
 *
 * @returns The document, as plain JSON.
 */
export function cloudOpenApiDocument(): Record<string, unknown> {
  return openApiDocument({
    info: {
      title: "Agent access cloud (/v1)",
      version: PACKAGE_VERSION,
      description: `The self-hostable cloud of ${PACKAGE_NAME}: intent manifests, violation reports, agent keys, ` +
        "events and agent inboxes, per project.",
    },
    routes: cloudRoutes,
    security: SECURITY,
  });
}

/** The OpenAPI handler. */
export const openApiHandlers: RouteHandlers<"openApi"> = {
  openApi() {
    text ??= JSON.stringify(cloudOpenApiDocument());
    return Promise.resolve(new Response(text, { headers: { "content-type": "application/json" } }));
  },
};
