/**
 * Payloads that an intent's input JSON Schema (from its manifest entry) says are
 * invalid: not an object, a required property missing, a property of the wrong
 * type, a value outside an enum, an unknown property where none are allowed.
 *
 * @module
 */

/** A payload the input schema rejects, and why. */
export interface InvalidPayload {
  /** What is wrong, such as `"title" of the wrong type`. */
  label: string;
  /** The payload. */
  payload: unknown;
}

type Schema = Record<string, unknown>;

const MAX_PROPERTIES = 8;

/**
 * Generates payloads the schema rejects. Properties described only by
 * combinators (`anyOf`, `$ref`) are left alone, so every payload is invalid for sure.
 *
 * @param schema The intent's input JSON Schema.
 * @returns At least one payload (a non-object); more when the schema has typed properties.
 *
 * @example Payloads for a schema with one required string
 * ```ts
 * import { invalidPayloads } from "@svc/agent-access/testing";
 * const payloads = invalidPayloads({
 *   type: "object",
 *   properties: { title: { type: "string" } },
 *   required: ["title"],
 * });
 * console.log(payloads.map((p) => p.label));
 * ```
 */
export function invalidPayloads(schema: Record<string, unknown>): InvalidPayload[] {
  const out: InvalidPayload[] = [{ label: "payload that is not an object", payload: ["not", "an", "object"] }];
  if (schema.type !== "object") return out;
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = ((schema.required ?? []) as string[]).filter((name) => typeof name === "string");
  if (required.length) out.push({ label: `required "${required[0]}" missing`, payload: {} });
  for (const [name, property] of Object.entries(properties).slice(0, MAX_PROPERTIES)) {
    const wrong = wrongValue(property);
    // The other required properties stay missing, so the payload fails even where a schema is lenient.
    if (wrong !== undefined) out.push({ label: `"${name}" ${wrong.label}`, payload: { [name]: wrong.value } });
  }
  if (schema.additionalProperties === false) {
    out.push({ label: "an unknown property where none are allowed", payload: { __conformance_unknown__: true } });
  }
  return out;
}

function wrongValue(property: Schema): { label: string; value: unknown } | undefined {
  if (Array.isArray(property.enum)) {
    return { label: "outside its enum", value: property.enum.every((v) => typeof v === "string") ? 0 : "__no__" };
  }
  if ("const" in property) {
    return { label: "other than its constant", value: typeof property.const === "string" ? 0 : "__no__" };
  }
  const types = Array.isArray(property.type) ? property.type : [property.type];
  if (types.length !== 1 || typeof types[0] !== "string") return undefined;
  const value = ({
    string: 0,
    number: "not a number",
    integer: "not an integer",
    boolean: "not a boolean",
    object: "not an object",
    array: "not an array",
    null: "not null",
  } as Record<string, unknown>)[types[0]];
  return value === undefined ? undefined : { label: "of the wrong type", value };
}
