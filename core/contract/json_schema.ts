/**
 * JSON Schema (draft 2020-12) from zod schemas: how the manifest describes an
 * intent's payload and result, and how the OpenAPI documents describe every
 * body, query and answer.
 *
 * @module
 */
import { z } from "zod";

/** A JSON Schema document (draft 2020-12), as produced by `z.toJSONSchema`. */
export type JsonSchema = Record<string, unknown>;

/**
 * The JSON Schema (draft 2020-12) of a zod schema; parts JSON Schema cannot
 * express (dates, transforms) become unconstrained.
 *
 * @param schema The zod schema.
 * @param io Describe what the schema accepts (`input`) or what it produces (`output`).
 * @returns The JSON Schema.
 */
export function toJsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  return z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
}
