/**
 * The intent manifest: each intent as described to agents and the dashboard
 * (name, title, required scopes, JSON Schema of its payload and result). The
 * app uploads it to the cloud; an agent sees it with what its key may run.
 *
 * @module
 */
import { type AgentKeyInfo, agentKeyInfoSchema } from "./key_responses.ts";
import { z } from "zod";
import type { JsonSchema } from "./json_schema.ts";
import { boundedJsonObject, SCHEMA_LIMITS, storedText } from "./limits.ts";
import { scopeName } from "./agent_keys.ts";
import { isoTimestamp } from "./wire_values.ts";

export type { JsonSchema };

/** One manifest entry: an intent as described to agents and the dashboard. */
export interface ManifestEntry {
  /** Intent name. */
  name: string;
  /** Display title. */
  title: string;
  /** Scopes a key must hold. */
  requiredScopes: string[];
  /** JSON Schema of the payload. */
  input: JsonSchema;
  /** JSON Schema of the result. */
  output: JsonSchema;
}

/** A manifest entry as an agent sees it: with whether its key may run the intent. */
export interface AgentManifestEntry extends ManifestEntry {
  /** Whether the key holds every required scope. */
  allowed: boolean;
}

/** A project's stored manifest. */
export interface Manifest {
  /** The intents. */
  intents: ManifestEntry[];
  /** The scopes the application supports. */
  scopes: string[];
  /** When it was uploaded, or `null` before the first upload. */
  updatedAt: string | null;
}

const entryShape = {
  name: storedText(1, 200),
  title: storedText(0, 500),
  requiredScopes: z.array(scopeName).max(100),
  input: boundedJsonObject(SCHEMA_LIMITS).default({}).describe("JSON Schema (draft 2020-12) of the payload"),
  output: boundedJsonObject(SCHEMA_LIMITS).default({}).describe("JSON Schema (draft 2020-12) of the result"),
};

/** {@linkcode ManifestEntry}: `input` and `output` default to `{}` (any value) when absent. */
export const manifestEntrySchema: z.ZodType<ManifestEntry, unknown> = z.object(entryShape);

/** {@linkcode AgentManifestEntry}. */
export const agentManifestEntrySchema: z.ZodType<AgentManifestEntry, unknown> = z.object({
  ...entryShape,
  allowed: z.boolean().describe("Whether this key holds every required scope"),
});

/** The answer of `GET /svc/agent/intents`: the manifest, with what this key may run, and the key itself. */
export const agentManifestSchema: z.ZodType<{ intents: AgentManifestEntry[]; key?: AgentKeyInfo }, unknown> = z
  .object({
    intents: z.array(agentManifestEntrySchema),
    key: agentKeyInfoSchema.optional().describe("The key presented: its scopes, and when it expires"),
  });

/** {@linkcode Manifest}, the answer of `GET /v1/sdk/intents`. */
export const manifestSchema: z.ZodType<Manifest, unknown> = z.object({
  intents: z.array(manifestEntrySchema),
  scopes: z.array(z.string()),
  updatedAt: isoTimestamp.nullable(),
});
