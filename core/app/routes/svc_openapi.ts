/**
 * `GET /svc/openapi.json`: the OpenAPI 3.1 document of the `/svc` routes, with
 * each intent's payload and result as named schemas and `POST /svc/agent/run`
 * described per intent. Public (no credential), generated once on first request.
 *
 * @module
 */
import { z } from "zod";
import type { JsonSchema } from "../../contract/mod.ts";
import { toJsonSchema } from "../../contract/mod.ts";
import { PACKAGE_NAME, PACKAGE_VERSION } from "../../contract/mod.ts";
import { openApiDocument } from "../../openapi/mod.ts";
import type { SchemaComponents } from "../../openapi/mod.ts";
import type { Route } from "../../http/mod.ts";
import { type AppSide, defineRoute } from "./app_side.ts";
import type { CompiledIntent } from "../../intents/mod.ts";

/** What the document describes. */
export interface SvcOpenApiOptions {
  /** The `/svc` routes. */
  routes: readonly Route<AppSide>[];
  /** The compiled registry. */
  intents: ReadonlyMap<string, CompiledIntent>;
  /** Whether `onAgentIntent` may take intents outside the registry. */
  acceptsOtherIntents: boolean;
  /** The scopes the app supports: the `enum` of a new key's `scopes`. */
  scopes: readonly string[];
}

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
 * @param routes Every other `/svc` route.
 * @returns `GET /svc/openapi.json`, its document built once on first request.
 */
export function svcOpenApiRoute(routes: readonly Route<AppSide>[]): Route<AppSide> {
  const others = [...routes]; // the table may gain this route afterwards
  let text: string | undefined;
  const route: Route<AppSide> = defineRoute({
    method: "GET",
    path: "/svc/openapi.json",
    auth: "none",
    summary: "This OpenAPI 3.1 document",
    responses: { 200: z.record(z.string(), z.unknown()).describe("An OpenAPI 3.1 document") },
    run(_input, { intents, acceptsOtherIntents, scopes }) {
      text ??= JSON.stringify(svcOpenApiDocument({ routes: [...others, route], intents, acceptsOtherIntents, scopes }));
      return Promise.resolve(new Response(text, { headers: { "content-type": "application/json" } }));
    },
  });
  return route;
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
      license: { name: "MIT", identifier: "MIT" },
      description: `Routes served by ${PACKAGE_NAME}: signed-in users mint, list and revoke agent keys; agents ` +
        "list and run the app's intents (key, then scopes, then payload schema, then handler), directly or over MCP.",
    },
    servers: [{ url: "/", description: "The app that serves these routes" }],
    routes: options.routes.map((route) => withScopeEnum(route, options.scopes)),
    security: SECURITY,
    extend: (components) => ({
      ...runOperation(options, components),
      "POST /svc/mcp": {
        description: "Model Context Protocol, Streamable HTTP transport, stateless, JSON responses. " +
          "`tools/list` lists the intents this key may run; `tools/call` runs one like `POST /svc/agent/run` " +
          "(the same checks, a rate-limit token per call); malformed calls are answered `-32602`.",
        externalDocs: { url: "https://modelcontextprotocol.io/specification/2025-11-25/basic/transports" },
      },
    }),
  });
}

/** `POST /svc/keys` with the app's scopes as the `enum` of `scopes` (the route checks them against `deps.scopes`). */
function withScopeEnum(route: Route<AppSide>, scopes: readonly string[]): Route<AppSide> {
  if (route.method !== "POST" || route.path !== "/svc/keys" || !(route.body instanceof z.ZodObject)) return route;
  const scope = scopes.length ? z.enum(scopes as [string, ...string[]]) : z.never();
  return { ...route, body: route.body.safeExtend({ scopes: z.array(scope).max(100) }) };
}

/** `POST /svc/agent/run` per intent: the body's `intent` names it, `payload` and `result` are its schemas. */
function runOperation(options: SvcOpenApiOptions, components: SchemaComponents): Record<string, JsonSchema> {
  const run = options.routes.find((r) => r.method === "POST" && r.path === "/svc/agent/run");
  const success = run?.responses[200];
  if (run?.body === undefined || !success || options.intents.size === 0) return {};
  const body = toJsonSchema(run.body, "input");
  const response = toJsonSchema(success, "output");
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
      },
    },
  };
}

function withProperties(schema: JsonSchema, properties: Record<string, unknown>, title: string): JsonSchema {
  const { $schema: _, ...rest } = schema;
  return { ...rest, title, properties: { ...rest.properties as object, ...properties } };
}
