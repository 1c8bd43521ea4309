/**
 * Intents: named actions an agent may run, with zod schemas for their payload
 * and result and the scopes a key must hold. The registry is the source of truth;
 * the manifest (JSON Schema) is generated from it.
 *
 * @module
 */
import { z } from "zod";
import { type JsonSchema, toJsonSchema } from "../contract/mod.ts";
import type { ManifestEntry } from "../contract/mod.ts";

export type { JsonSchema, ManifestEntry };

/** A handler's result, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * A schema, described by the Standard Schema interface that zod 4 implements.
 * Intents take zod schemas; this type only names what their signatures need.
 */
export interface Schema<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly "~standard": {
    /** The Standard Schema version. */
    readonly version: 1;
    /** The library, such as `zod`. */
    readonly vendor: string;
    /** The input and output types, for inference. */
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

/** The type a schema accepts. */
export type InferInput<S extends Schema> = NonNullable<S["~standard"]["types"]>["input"];
/** The type a schema produces. */
export type InferOutput<S extends Schema> = NonNullable<S["~standard"]["types"]>["output"];

/**
 * An intent definition. `handler` receives the payload parsed by `input` and
 * the user id of the key's owner.
 */
export interface Intent<I extends Schema = Schema, O extends Schema = Schema> {
  /** The intent name; the registry is keyed by it. */
  name: string;
  /** Display title. */
  title: string;
  /** Scopes the calling key must hold. */
  requiredScopes: readonly string[];
  /** Payload schema, a zod schema (default: an empty object). */
  input?: I;
  /** Result schema, a zod schema (default: anything). */
  output?: O;
  /** Runs the intent. Throwing an SvcError answers with its code; anything else is INTENT_FAILED. */
  handler: (payload: InferOutput<I>, user: string) => MaybePromise<InferInput<O>>;
  /**
   * Whether a run waits for its user's decision: `"always"`, or a function of the validated payload and the key's
   * user (`true`: wait). Absent: never. The handler then runs once, when the user approves.
   */
  approval?: ApprovalRule<InferOutput<I>>;
  /** How long a run waits for the decision before it expires, in minutes (1..10080, default 1440). */
  approvalTtlMinutes?: number;
}

/** When a run of an intent waits for its user's decision. */
export type ApprovalRule<P = unknown> = "always" | ((payload: P, user: string) => boolean | Promise<boolean>);

/** An approval's time to live when the intent gives none, in minutes (24 hours). */
export const DEFAULT_APPROVAL_TTL_MINUTES = 1440;
/** The longest an approval may wait, in minutes (7 days). */
export const MAX_APPROVAL_TTL_MINUTES = 10_080;

/**
 * The registry of intents: a record keyed by name, or an array. The `name`
 * field of each definition wins over its record key.
 */
// deno-lint-ignore no-explicit-any
export type IntentRegistry = Record<string, Intent<any, any>> | readonly Intent<any, any>[];

/**
 * Defines an intent with its handler typed from the schemas: the payload is
 * the output type of `input`, and the result must fit `output`.
 *
 * @param intent The definition.
 * @returns The same definition, typed.
 *
 * @example Define an intent
 * ```ts
 * import { z } from "zod";
 * import { defineIntent } from "@svc/agent-access";
 *
 * const createNote = defineIntent({
 *   name: "notes.create",
 *   title: "Create a note",
 *   requiredScopes: ["notes:write"],
 *   input: z.object({ title: z.string().min(1) }),
 *   output: z.object({ id: z.string() }),
 *   handler: (payload, user) => ({ id: `${user}:${payload.title}` }),
 * });
 * ```
 */
export function defineIntent<I extends Schema = Schema<Record<string, never>>, O extends Schema = Schema<unknown>>(
  intent: Intent<I, O>,
): Intent<I, O> {
  checkApproval(intent);
  return intent;
}

/** Throws when an intent's `approval` or `approvalTtlMinutes` is not one the contract allows. */
function checkApproval(intent: Pick<Intent, "name" | "approvalTtlMinutes"> & { approval?: unknown }): void {
  const { approval, approvalTtlMinutes: ttl } = intent;
  if (approval !== undefined && approval !== "always" && typeof approval !== "function") {
    throw new TypeError(`Intent "${intent.name}": approval must be "always" or a function (payload, user) => boolean`);
  }
  if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_APPROVAL_TTL_MINUTES)) {
    throw new TypeError(
      `Intent "${intent.name}": approvalTtlMinutes must be a whole number of minutes from 1 to ${MAX_APPROVAL_TTL_MINUTES}`,
    );
  }
}

/** An intent ready to run: its definition with defaults filled in, and its manifest entry. */
export interface CompiledIntent {
  /** Intent name. */
  name: string;
  /** Scopes a key must hold. */
  requiredScopes: readonly string[];
  /** Payload schema. */
  input: z.ZodType;
  /** Result schema. */
  output: z.ZodType;
  /** The handler. */
  handler: (payload: unknown, user: string) => unknown;
  /** Whether a run waits for its user's decision (`null`: never). */
  approval: ApprovalRule | null;
  /** How long such a run waits, in minutes. */
  approvalTtlMinutes: number;
  /** What agents see. */
  manifest: ManifestEntry;
}

const EMPTY_INPUT = z.object({});
const ANY_OUTPUT = z.unknown();

/**
 * Compiles a registry: fills defaults, checks names and scopes, and generates
 * each intent's JSON Schema once.
 *
 * @param registry The intents.
 * @param scopes The scopes the application supports.
 * @returns The intents by name.
 * @throws {Error} On a duplicate name or a required scope the app does not support.
 */
export function compileIntents(registry: IntentRegistry, scopes: readonly string[]): Map<string, CompiledIntent> {
  const known = new Set(scopes);
  const out = new Map<string, CompiledIntent>();
  for (const [key, intent] of Array.isArray(registry) ? registry.map((i) => [i.name, i]) : Object.entries(registry)) {
    const name = intent.name ?? key;
    if (typeof name !== "string" || name.length === 0 || name.length > 200) {
      throw new Error(`Intent name must be 1..200 characters: ${JSON.stringify(name)}`);
    }
    if (out.has(name)) throw new Error(`Intent "${name}" is defined twice`);
    const missing = intent.requiredScopes.filter((s: string) => !known.has(s));
    if (missing.length) throw new Error(`Intent "${name}" requires scopes the app does not support: ${missing}`);
    checkApproval({ ...intent, name });
    const input = (intent.input ?? EMPTY_INPUT) as z.ZodType;
    const output = (intent.output ?? ANY_OUTPUT) as z.ZodType;
    out.set(name, {
      name,
      requiredScopes: intent.requiredScopes,
      input,
      output,
      handler: intent.handler,
      approval: (intent.approval as ApprovalRule | undefined) ?? null,
      approvalTtlMinutes: intent.approvalTtlMinutes ?? DEFAULT_APPROVAL_TTL_MINUTES,
      manifest: {
        name,
        title: intent.title ?? name,
        requiredScopes: [...intent.requiredScopes],
        input: toJsonSchema(input, "input"),
        output: toJsonSchema(output, "output"),
      },
    });
  }
  return out;
}
