/**
 * `GET /svc/openapi.json`: the OpenAPI 3.1 document of the `/svc` routes, with
 * each intent's payload and result as named schemas and `POST /svc/agent/run`
 * described per intent. Public (no credential), generated once on first request.
 *
 * @module
 */
import type { CompiledIntent, JsonSchema } from "./intents.ts";
import { toJsonSchema } from "./intents.ts";
import { openApiDocument } from "../http/openapi.ts";
import type { SchemaComponents } from "../http/openapi_components.ts";
import { type SvcRoute, svcRoute } from "../http/route.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../contract/version.ts";

/** What the document describes. */
export interface SvcOpenApiOptions {
  /** Every other `/svc` route. */
  routes: readonly SvcRoute[];
  /** The compiled registry. */
  intents: ReadonlyMap<string, CompiledIntent>;
  /** Whether `onAgentIntent` may take intents outside the registry. */
  acceptsOtherIntents: boolean;
}

const ERROR = { $ref: "#/components/responses/Error" };

/** How `/svc` callers authenticate, as OpenAPI security schemes. */
const SECURITY: Record<string, Record<string, JsonSchema>> = {
  user: {
    appSession: {
      type: "apiKey",
      in: "cookie",
      name: "session",
      description: "The app's own sign-in, resolved by its `userResolver`; the cookie (or header) is the app's choice",
    },
  },
  agent: {
    agentKey: { type: "http", scheme: "bearer", bearerFormat: "svc_live_…", description: "An agent key" },
  },
  none: {},
};

/**
 * The OpenAPI route.
 *
 * @param options The other routes and the intents.
 * @returns `GET /svc/openapi.json`.
 */
export function openApiRoutes(options: SvcOpenApiOptions): SvcRoute[] {
  let text: string | undefined;
  const route: SvcRoute = svcRoute({
    method: "GET",
    path: "/svc/openapi.json",
    auth: "none",
    summary: "This OpenAPI 3.1 document",
    run(): Promise<Response> {
      text ??= JSON.stringify(svcOpenApiDocument({ ...options, routes: [...options.routes, route] }));
      return Promise.resolve(new Response(text, { headers: { "content-type": "application/json" } }));
    },
  });
  return [route];
}

/**
 * Builds the `/svc` document.
 *
 * @param options The routes (this one included) and the intents.
 * @returns The OpenAPI 3.1 document.
 */
export function svcOpenApiDocument(options: SvcOpenApiOptions): JsonSchema {
  return openApiDocument({
    info: {
      title: "Agent access (/svc)",
      version: PACKAGE_VERSION,
      description: `Routes served by ${PACKAGE_NAME}: signed-in users mint, list and revoke agent keys; agents ` +
        "list and run the app's intents (key, then scopes, then payload schema, then handler), directly or over MCP.",
    },
    routes: options.routes,
    security: SECURITY,
    extend: (components) => ({
      ...runOperation(options, components),
      "POST /svc/mcp": {
        description: "Model Context Protocol, Streamable HTTP transport, stateless, JSON responses. " +
          "`tools/list` lists the intents this key may run; `tools/call` runs one like `POST /svc/agent/run`.",
        externalDocs: { url: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports" },
        requestBody: {
          required: true,
          content: { "application/json": { schema: { description: "A JSON-RPC 2.0 message of MCP" } } },
        },
        responses: {
          "200": {
            description: "The JSON-RPC response",
            content: { "application/json": { schema: { description: "A JSON-RPC 2.0 response of MCP" } } },
          },
          "202": { description: "A notification or response was accepted" },
        },
      },
    }),
  });
}

/** `POST /svc/agent/run` per intent: the body's `intent` names it, `payload` and `result` are its schemas. */
function runOperation(options: SvcOpenApiOptions, components: SchemaComponents): Record<string, JsonSchema> {
  const run = options.routes.find((r) => r.method === "POST" && r.path === "/svc/agent/run");
  if (run?.body === undefined || run.response === undefined || options.intents.size === 0) return {};
  const body = toJsonSchema(run.body, "input");
  const response = toJsonSchema(run.response, "output");
  const bodies: JsonSchema[] = [];
  const results: JsonSchema[] = [];
  for (const { manifest } of options.intents.values()) {
    const about = `"${manifest.name}" (${manifest.title}); scopes: ${manifest.requiredScopes.join(", ") || "none"}`;
    const input = components.add(`${manifest.name}.input`, { description: `Payload of ${about}`, ...manifest.input });
    const output = components.add(`${manifest.name}.output`, { description: `Result of ${about}`, ...manifest.output });
    const intent = { const: manifest.name };
    bodies.push(withProperties(body, { intent, payload: input }, manifest.title));
    results.push(withProperties(response, { intent, result: output }, manifest.title));
  }
  const union = options.acceptsOtherIntents ? "anyOf" : "oneOf";
  if (options.acceptsOtherIntents) bodies.push(withProperties(body, {}, "Another intent, for onAgentIntent"));
  return {
    "POST /svc/agent/run": {
      requestBody: { required: true, content: { "application/json": { schema: { [union]: bodies } } } },
      responses: {
        "200": { description: "The intent's result", content: { "application/json": { schema: { anyOf: results } } } },
        "403": ERROR,
        "404": ERROR,
        "500": ERROR,
      },
    },
  };
}

function withProperties(schema: JsonSchema, properties: Record<string, unknown>, title: string): JsonSchema {
  const { $schema: _, ...rest } = schema;
  return { ...rest, title, properties: { ...rest.properties as object, ...properties } };
}
