// Writes docs/reference.md, the reference of every `/svc` and `/v1` route, from
// the OpenAPI documents the two route tables produce (one source: the routes'
// zod schemas). `npm run docs:reference` runs it; tests/docs/reference_test.ts
// fails when the checked-in file differs from what it would write.
//
// The text goes through `deno fmt` (the repository's own Deno), as every Markdown file of the repository.
//
// It reads the documents the way a client does, through the public entry
// points: `GET /svc/openapi.json` of an app built with `createSvc` and
// `GET /v1/openapi.json` of `createCloud`, so it needs no internal import.
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { createSvc, defineIntent, type ErrorCode } from "../mod.ts";
import { createCloud } from "../cloud/mod.ts";
import { ERROR_STATUS } from "../core/errors/mod.ts";

/** A JSON Schema or OpenAPI object, as read from a document. */
type Json = Record<string, unknown>;

/** Where the reference is written, relative to the repository root. */
export const REFERENCE_PATH = "docs/reference.md";

/** The `/svc` document of an app with one intent, the quick starts' `notes.create`, and `oauth` on (its routes too). */
async function svcDocument(): Promise<Json> {
  const svc = createSvc({
    userResolver: () => null,
    scopes: ["notes:read", "notes:write"],
    oauth: {},
    intents: [defineIntent({
      name: "notes.create",
      title: "Create a note",
      requiredScopes: ["notes:write"],
      input: z.object({ title: z.string().min(1) }),
      output: z.object({ id: z.string() }),
      handler: () => ({ id: "1" }),
    })],
  });
  try {
    return await (await svc.handle(new Request("http://127.0.0.1:8000/svc/openapi.json"))).json();
  } finally {
    await svc.close();
  }
}

/** The `/v1` document of a cloud on an in-memory database. */
async function cloudDocument(): Promise<Json> {
  const cloud = createCloud({ db: ":memory:" });
  try {
    return await (await cloud.handle(new Request("http://127.0.0.1:8787/v1/openapi.json"))).json();
  } finally {
    await cloud.close();
  }
}

/** The one media type of a body or an answer and its entry (`[undefined, undefined]`: none). */
function mediaOf(owner: Json | undefined): [string, Json] | [undefined, undefined] {
  const entry = Object.entries((owner?.content as Record<string, Json> | undefined) ?? {})[0];
  return entry ?? [undefined, undefined];
}

/** Follows a local `$ref` (`#/components/...`). */
function resolve(doc: Json, schema: Json): Json {
  let current = schema;
  for (let hops = 0; typeof current.$ref === "string" && hops < 10; hops++) {
    current = (current.$ref as string).slice(2).split("/").reduce<Json>((node, key) => node[key] as Json, doc);
  }
  return current;
}

/** The size bounds of a schema, as `1..200` (the safe-integer maximum is left out). */
function bounds(min: unknown, max: unknown, unit: string): string {
  const hi = typeof max === "number" && max < Number.MAX_SAFE_INTEGER ? max : undefined;
  const lo = typeof min === "number" ? min : undefined;
  if (lo === undefined && hi === undefined) return "";
  return ` (${lo ?? 0}..${hi ?? ""}${unit})`;
}

/** A one-line description of a schema's type, such as `string (1..200 characters)` or `"info" | "warning"`. */
function typeOf(doc: Json, raw: Json): string {
  const schema = resolve(doc, raw);
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants) return variants.map((v) => typeOf(doc, v)).join(" | ");
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(schema.type)) return schema.type.map((t) => typeOf(doc, { ...schema, type: t })).join(" | ");
  switch (schema.type) {
    case "string": {
      const format = typeof schema.format === "string" ? ` (${schema.format})` : "";
      return `string${bounds(schema.minLength, schema.maxLength, " characters")}${format}`;
    }
    case "integer":
    case "number":
      return `${schema.type}${bounds(schema.minimum, schema.maximum, "")}`;
    case "array":
      return `array${bounds(schema.minItems, schema.maxItems, " items")} of ${
        typeOf(doc, (schema.items ?? {}) as Json)
      }`;
    case "object": {
      const properties = Object.keys((schema.properties ?? {}) as Json);
      return properties.length ? `object { ${properties.join(", ")} }` : "object";
    }
    case "boolean":
    case "null":
      return schema.type;
    default:
      return "any JSON value";
  }
}

/** The fields of a schema as a nested Markdown list (an object's members, each variant of a union). */
function fields(doc: Json, raw: Json, indent: string): string[] {
  const schema = resolve(doc, raw);
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants?.length === 1) return fields(doc, variants[0], indent);
  if (variants && variants.length > 1) {
    const members = variants.map((variant) => fields(doc, variant, indent + "  "));
    if (members.every((m) => m.length === 0)) return [];
    return variants.flatMap((variant, i) => [`${indent}- one of (${i + 1}): ${typeOf(doc, variant)}`, ...members[i]]);
  }
  if (schema.type === "array" && schema.items) return fields(doc, schema.items as Json, indent);
  if (schema.type !== "object" || !schema.properties) return [];
  const required = new Set((schema.required ?? []) as string[]);
  return Object.entries(schema.properties as Record<string, Json>).flatMap(([name, member]) => {
    const described = resolve(doc, member);
    const note = typeof described.description === "string" ? `: ${described.description}` : "";
    return [
      `${indent}- \`${name}\`${required.has(name) ? "" : " (optional)"}: ${typeOf(doc, member)}${note}`,
      ...fields(doc, member, indent + "  "),
    ];
  });
}

/** How an operation authenticates, from its `security` and the document's schemes. */
function authOf(doc: Json, op: Json): string {
  const schemes = ((doc.components as Json).securitySchemes ?? {}) as Record<string, Json>;
  const requirements = (op.security ?? []) as Json[];
  if (requirements.length === 0) return "none";
  return requirements.map((requirement) =>
    Object.keys(requirement).map((name) => {
      const scheme = schemes[name] ?? {};
      const how = scheme.type === "http"
        ? `\`Authorization: Bearer ${scheme.bearerFormat ?? "…"}\``
        : scheme.type === "apiKey"
        ? `\`${scheme.name}\` ${scheme.in}`
        : String(scheme.type);
      return `\`${name}\` (${how}: ${scheme.description ?? ""})`;
    }).join(" and ")
  ).join(", or ");
}

/** The Markdown of one operation. */
function operation(doc: Json, method: string, path: string, op: Json): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, "", `${op.summary}.`, ""];
  lines.push(`- Operation: \`${op.operationId}\``, `- Auth: ${authOf(doc, op)}`);
  const parameters = (op.parameters ?? []) as Json[];
  for (const where of ["path", "query"]) {
    const own = parameters.filter((p) => p.in === where);
    if (own.length === 0) continue;
    lines.push(`- ${where === "path" ? "Path" : "Query"}:`);
    for (const p of own) {
      const note = typeof p.description === "string" ? `: ${p.description}` : "";
      const type = typeOf(doc, p.schema as Json);
      lines.push(`  - \`${p.name}\`${p.required ? "" : " (optional)"}: ${type}${note}`);
    }
  }
  const [bodyType, body] = mediaOf(op.requestBody as Json | undefined);
  if (body) {
    const kind = bodyType === "application/json" ? "JSON" : bodyType;
    lines.push(`- Body (${kind}): ${typeOf(doc, body.schema as Json)}`, ...fields(doc, body.schema as Json, "  "));
  }
  lines.push("- Responses:");
  const errors: string[] = [];
  for (const [status, raw] of Object.entries(op.responses as Record<string, Json>)) {
    const response = resolve(doc, raw);
    const [type, media] = mediaOf(response);
    const schema = media?.schema as Json | undefined;
    if (typeof raw.$ref === "string" && raw.$ref.endsWith("/Error")) {
      errors.push(`\`${status}\``);
      continue;
    }
    const description = response.description === op.summary ? "" : `${response.description}: `;
    const as = type === "application/json" ? "" : ` (${type})`;
    lines.push(`  - \`${status}\`: ${description}${schema ? typeOf(doc, schema) + as : "no body"}`);
    if (schema) lines.push(...fields(doc, schema, "    "));
  }
  lines.push(`  - ${errors.join(", ")}: the error envelope (the codes of each status are listed above)`);
  return [...lines, ""];
}

/** The codes that carry a status, from the one status map (`UNREACHABLE` is never sent by a server). */
function errorCodes(status: number): string {
  const codes = (Object.entries(ERROR_STATUS) as [ErrorCode, number][])
    .filter(([code, s]) => s === status && code !== "UNREACHABLE")
    .map(([code]) => `\`${code}\``);
  return codes.length ? codes.join(", ") : "no code of its own";
}

/** The Markdown of one document: every path and method, in the route table's order. */
function section(doc: Json, title: string, intro: string): string[] {
  const lines = [`## ${title}`, "", intro, ""];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods)) lines.push(...operation(doc, method, path, op as Json));
  }
  return lines;
}

/**
 * The reference, as Markdown, generated from the `/svc` and `/v1` OpenAPI documents.
 *
 * @returns The text of docs/reference.md.
 */
export async function renderReference(): Promise<string> {
  const [svc, cloud] = await Promise.all([svcDocument(), cloudDocument()]);
  const statuses = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);
  const lines = [
    "# Reference: the `/svc` and `/v1` routes",
    "",
    "<!-- Generated by scripts/generate_reference.ts from the route tables: do not edit. Run `npm run docs:reference`. -->",
    "",
    "Every route of the app's `/svc` and of the cloud's `/v1`, generated from the OpenAPI documents that",
    "`GET /svc/openapi.json` and `GET /v1/openapi.json` serve, which are built from the route tables and the zod",
    "schemas that validate every request and describe every answer. What each route does, with examples, is in the",
    "[guide](guide.md); how errors look, in [the guide's Errors](guide.md#errors).",
    "",
    "Every error is the envelope `{ ok: false, error: { code, message, details? } }` with",
    "`Content-Type: application/json`. The codes each status carries (`core/contract/errors.ts`, the one map; a route",
    "answers the ones that apply to it):",
    "",
    ...statuses.map((status) => `- \`${status}\`: ${errorCodes(status)}`),
    "",
    "Every route also answers `404 NOT_FOUND` for an unknown path and `405 METHOD_NOT_ALLOWED` (with `Allow`) for a",
    "known path with another method.",
    "",
    ...section(
      svc,
      "The app: `/svc`",
      "Generated for an app whose only intent is the quick starts' `notes.create` and whose scopes are `notes:read` and " +
        "`notes:write`; your app's own `GET /svc/openapi.json` lists your intents and scopes.",
    ),
    ...section(
      cloud,
      "The cloud: `/v1`",
      "The SDK routes take both `sdkSecret` and `project`; the agent routes take an agent key.",
    ),
  ];
  return formatMarkdown(lines.join("\n"));
}

/** Formats Markdown as `deno fmt` does in this repository (its line width), so the file passes `deno fmt --check`. */
function formatMarkdown(text: string): string {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const local = join(root, "node_modules", ".bin", "deno"); // the repository's own Deno, else the one on the PATH
  const deno = existsSync(local) ? local : "deno";
  const result = spawnSync(deno, ["fmt", "--ext=md", "-"], { cwd: root, input: text, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`deno fmt failed: ${result.stderr || result.error}`);
  return result.stdout;
}

if (import.meta.main) {
  writeFileSync(REFERENCE_PATH, await renderReference());
  console.log(`wrote ${REFERENCE_PATH}`);
}
