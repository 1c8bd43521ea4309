/**
 * An OpenAPI 3.1 document generated from a route table: each route's method,
 * path, auth and summary, and its body, query, path and response zod schemas
 * (through `z.toJSONSchema`), with the contract's error envelope. Generic over
 * the table, so `/svc` and the cloud's `/v1` share it.
 *
 * @module
 */
import type { z } from "zod";
import { errorEnvelopeSchema } from "../contract/mod.ts";
import type { JsonSchema } from "../contract/mod.ts";
import { toJsonSchema } from "../contract/mod.ts";
import { type SchemaComponents, schemaComponents } from "./openapi_components.ts";
import type { RouteDescription } from "../http/mod.ts";

/** What to document. */
export interface OpenApiOptions {
  /** `info`: title, version, description and license. */
  info: { title: string; version: string; description?: string; license?: { name: string; identifier?: string } };
  /** Where the API is served. */
  servers: { url: string; description?: string }[];
  /** The route table. */
  routes: readonly RouteDescription[];
  /**
   * For each auth kind, the security schemes a caller must present together
   * (`{}` for none), such as `{ agent: { agentKey: { type: "http", scheme: "bearer" } } }`.
   */
  security: Record<string, Record<string, JsonSchema>>;
  /**
   * Adds named schemas and adjusts operations, keyed `"POST /svc/agent/run"`:
   * the returned fields replace the operation's (`responses` are merged).
   */
  extend?: (components: SchemaComponents) => Record<string, JsonSchema>;
}

const ERROR_RESPONSE = { $ref: "#/components/responses/Error" };

/**
 * Builds the document.
 *
 * @param options Info, routes, security schemes and extensions.
 * @returns The OpenAPI 3.1 document, as plain JSON.
 * @throws {Error} When a route's auth kind has no entry in `security`.
 */
export function openApiDocument(options: OpenApiOptions): JsonSchema {
  const components = schemaComponents();
  const error = components.add("Error", toJsonSchema(errorEnvelopeSchema, "output"));
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of options.routes) {
    const schemes = options.security[route.auth];
    if (schemes === undefined) throw new Error(`No security schemes for auth "${route.auth}" (${route.path})`);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route, schemes, components);
  }
  for (const [at, extra] of Object.entries(options.extend?.(components) ?? {})) {
    const [method, path] = at.split(" ");
    const op = paths[openApiPath(path)]?.[method.toLowerCase()];
    if (op === undefined) throw new Error(`extend names no route: ${at}`);
    Object.assign(op, extra, { responses: { ...op.responses as object, ...extra.responses as object } });
  }
  const securitySchemes = Object.assign({}, ...Object.values(options.security));
  const responses = {
    Error: {
      description: "The error envelope: `{ ok: false, error: { code, message, details? } }`",
      content: { "application/json": { schema: error } },
    },
  };
  components.prune([paths, responses]);
  standardFormatsOnly([paths, components.schemas]);
  return {
    openapi: "3.1.0",
    info: options.info,
    servers: options.servers,
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    paths,
    components: { schemas: components.schemas, responses, securitySchemes },
  };
}

function operation(
  route: RouteDescription,
  schemes: Record<string, JsonSchema>,
  components: SchemaComponents,
): JsonSchema {
  const id = route.name ?? `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+/g, "_")}`;
  const parameters = [...pathParameters(route), ...objectParameters(route.query, "query")];
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(route.responses)) {
    if (schema === errorEnvelopeSchema) responses[status] = ERROR_RESPONSE;
    else if (schema === null) responses[status] = { description: route.summary };
    else {
      const description = schema.description ?? route.summary;
      const ref = components.add(`${id}.${status}`, toJsonSchema(schema, "output"));
      const media = route.mediaType ?? "application/json";
      responses[status] = { description, content: { [media]: { schema: ref } } };
    }
  }
  const secured = Object.keys(schemes).length > 0;
  // The errors that follow from the route's shape; a route lists its own (such as 403) in `responses`.
  if (route.body || route.query || parameters.length) responses["400"] ??= ERROR_RESPONSE;
  if (secured) responses["401"] ??= ERROR_RESPONSE;
  if (route.body && route.bodyMediaType === undefined) responses["413"] ??= ERROR_RESPONSE;
  if (route.limit) responses["429"] ??= ERROR_RESPONSE;
  // STORAGE_UNAVAILABLE, STORAGE_BUSY (a write past the busy timeout), or CLOUD_UNAVAILABLE for a key checked at the cloud
  responses["503"] ??= ERROR_RESPONSE;
  if (route.method !== "GET") responses["507"] ??= ERROR_RESPONSE; // STORAGE_FULL: a write when the disk is full
  responses.default = ERROR_RESPONSE;
  const op: JsonSchema = {
    operationId: id,
    summary: route.summary,
    tags: [route.path.split("/")[2] ?? "root"],
    security: secured ? [Object.fromEntries(Object.keys(schemes).map((name) => [name, []]))] : [],
    responses,
  };
  if (parameters.length) op.parameters = parameters;
  if (route.body) {
    op.requestBody = {
      required: true,
      content: {
        [route.bodyMediaType ?? "application/json"]: {
          schema: components.add(`${id}.body`, toJsonSchema(route.body, "input")),
        },
      },
    };
  }
  return op;
}

/**
 * The `format`s of JSON Schema 2020-12 and of the OpenAPI 3.1 data types; zod
 * also writes its own (`starts_with`, `cuid`…), which tools do not know, and
 * whose `pattern` says the same.
 */
const STANDARD_FORMATS = new Set([
  ..."date-time date time duration email idn-email hostname idn-hostname ipv4 ipv6 uri uri-reference".split(" "),
  ..."iri iri-reference uuid uri-template json-pointer relative-json-pointer regex".split(" "),
  ..."int32 int64 float double password byte binary".split(" "),
]);

/** Removes every non-standard string `format` from schemas, in place. */
function standardFormatsOnly(node: unknown): void {
  if (typeof node !== "object" || node === null) return;
  const record = node as Record<string, unknown>;
  if (typeof record.format === "string" && !STANDARD_FORMATS.has(record.format)) delete record.format;
  for (const value of Object.values(record)) standardFormatsOnly(value);
}

/**
 * Turns a route path into an OpenAPI path.
 *
 * @param path A route path, such as `/svc/keys/:id`.
 * @returns The OpenAPI path, such as `/svc/keys/{id}`.
 */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function pathParameters(route: RouteDescription): JsonSchema[] {
  const described = objectParameters(route.params, "path");
  return [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]) =>
    described.find((p) => p.name === name) ?? { name, in: "path", required: true, schema: { type: "string" } }
  );
}

function objectParameters(schema: z.ZodType | undefined, where: "query" | "path"): JsonSchema[] {
  if (schema === undefined) return [];
  const json = toJsonSchema(schema, "input");
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries((json.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: JsonSchema = { name, in: where, required: where === "path" || required.has(name), schema: rest };
    if (description !== undefined) parameter.description = description;
    return parameter;
  });
}
