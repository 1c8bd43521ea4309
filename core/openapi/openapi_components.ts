/**
 * Named schemas for an OpenAPI document. JSON Schema from `z.toJSONSchema` is
 * self-contained (`$defs`, `#` for recursion); once placed inside a document
 * those references would point at the document, so each schema's `$defs` are
 * moved to `components.schemas` and its references rewritten.
 *
 * @module
 */
import type { JsonSchema } from "../contract/mod.ts";

/** A `$ref` to a named schema. */
export type SchemaRef = { $ref: string };

/** Collects `components.schemas`. */
export interface SchemaComponents {
  /** Adds a schema under a name (made unique and safe); returns a `$ref` to it. */
  add(name: string, schema: JsonSchema): SchemaRef;
  /** Everything added so far. */
  readonly schemas: Record<string, JsonSchema>;
  /** Removes every schema that `roots` do not reach, directly or through other schemas. */
  prune(roots: unknown): void;
}

/** Keywords whose value maps names to schemas, rather than being a schema. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * Creates an empty collection of named schemas.
 *
 * @returns The collection.
 */
export function schemaComponents(): SchemaComponents {
  const schemas: Record<string, JsonSchema> = {};
  const ref = (name: string): SchemaRef => ({ $ref: `#/components/schemas/${name}` });
  const unique = (wanted: string): string => {
    const safe = wanted.replace(/[^A-Za-z0-9._-]/g, "_");
    let name = safe;
    for (let n = 2; name in schemas; n++) name = `${safe}_${n}`;
    return name;
  };

  function add(wanted: string, schema: JsonSchema): SchemaRef {
    const name = unique(wanted);
    schemas[name] = {}; // reserve the name before the defs take theirs
    const defs = (schema.$defs ?? {}) as Record<string, JsonSchema>;
    const defNames = new Map(Object.keys(defs).map((d) => [d, unique(`${name}.${d}`)]));
    for (const d of defNames.values()) schemas[d] = {};
    const rewrite = (node: unknown, isMap = false): unknown => {
      if (Array.isArray(node)) return node.map((n) => rewrite(n));
      if (typeof node !== "object" || node === null) return node;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) {
        if (!isMap && (k === "$schema" || k === "$defs")) continue;
        if (!isMap && k === "$ref" && typeof v === "string") out.$ref = rewriteRef(v);
        else out[k] = rewrite(v, !isMap && SCHEMA_MAPS.has(k));
      }
      return out;
    };
    const rewriteRef = (target: string): string => {
      if (target === "#") return ref(name).$ref;
      const def = target.startsWith("#/$defs/") ? defNames.get(decodePointer(target.slice(8))) : undefined;
      return def === undefined ? target : ref(def).$ref;
    };
    for (const [d, defSchema] of Object.entries(defs)) schemas[defNames.get(d)!] = rewrite(defSchema) as JsonSchema;
    schemas[name] = rewrite(schema) as JsonSchema;
    return ref(name);
  }

  function prune(roots: unknown): void {
    const reached = new Set<string>();
    const pending = [...refsIn(roots)];
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      if (reached.has(name) || !(name in schemas)) continue;
      reached.add(name);
      pending.push(...refsIn(schemas[name]));
    }
    for (const name of Object.keys(schemas)) if (!reached.has(name)) delete schemas[name];
  }

  return { add, schemas, prune };
}

const SCHEMA_REF = "#/components/schemas/";

/** The names of the schemas a value refers to (`$ref`s into `components.schemas`). */
function refsIn(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(refsIn);
  if (typeof node !== "object" || node === null) return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === "$ref" && typeof v === "string" && v.startsWith(SCHEMA_REF) ? [v.slice(SCHEMA_REF.length)] : refsIn(v)
  );
}

function decodePointer(token: string): string {
  return decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
}
