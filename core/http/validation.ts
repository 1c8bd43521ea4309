/**
 * Validation of request values against zod schemas, with failures turned into
 * the contract's `details.issues: [{ path, message }]`.
 *
 * @module
 */
import type { z } from "zod";
import { type ErrorCode, SvcError } from "../errors/mod.ts";
import { closestField } from "../contract/mod.ts";

/** One validation problem: a dotted path to the value (`""` for the root) and what is wrong. */
export interface Issue {
  /** Dotted path, such as `scopes.1`; empty for the value itself. */
  path: string;
  /** Human-readable text. */
  message: string;
}

const MAX_ISSUES = 20;

/**
 * Converts zod issues into the contract's issue list (at most 20). A value
 * that matches no option of a union gets the issues of the option it came
 * closest to, at full paths, so each names a real field of one shape.
 *
 * @param issues The issues of a failed `safeParse`.
 * @returns Plain `{ path, message }` records.
 */
export function toIssues(issues: readonly z.core.$ZodIssue[]): Issue[] {
  return closestIssues(issues, []).slice(0, MAX_ISSUES);
}

function closestIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[]): Issue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code !== "invalid_union" || issue.errors.length === 0) {
      return [{ path: path.map(String).join("."), message: issue.message }];
    }
    const closest = issue.errors.reduce((best, option) => distance(option) < distance(best) ? option : best);
    return closestIssues(closest, path);
  });
}

/** How far a value is from a union option: missing fields count most, then other issues. */
function distance(issues: readonly z.core.$ZodIssue[]): number {
  const missing = issues.filter((i) => i.code === "invalid_type" && /received undefined$/.test(i.message)).length;
  return missing * 1000 + issues.length;
}

/**
 * Parses a value with a schema, or throws the contract's validation error.
 *
 * @param schema The zod schema.
 * @param value The untrusted value.
 * @param code The error code on failure, `VALIDATION_ERROR` by default.
 * @param message The error message on failure.
 * @returns The parsed value.
 * @throws {SvcError} With `details.issues`.
 */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode = "VALIDATION_ERROR",
  message = "Invalid request",
): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new SvcError(code, message, { details: { issues: toIssues(result.error.issues) } });
}

/**
 * Validates a request body strictly: the schema's issues first, then every field it does not know
 * ({@linkcode unknownFields}), all in one `400 VALIDATION_ERROR`.
 *
 * @example An unknown field
 * ```ts
 * import { z } from "zod";
 * import { parseBodyOrThrow } from "./validation.ts";
 *
 * parseBodyOrThrow(z.object({ name: z.string() }), { name: "n", nmae: "n" }); // throws, naming "nmae" and "name"
 * ```
 *
 * @param schema The body's schema.
 * @param value The body as read.
 * @returns The parsed body.
 * @throws {SvcError} `VALIDATION_ERROR` with `details.issues`.
 */
export function parseBodyOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  const unknown = unknownFields(schema, value);
  if (result.success && unknown.length === 0) return result.data;
  const issues = [...result.success ? [] : toIssues(result.error.issues), ...unknown].slice(0, MAX_ISSUES);
  throw new SvcError("VALIDATION_ERROR", "Invalid request", { details: { issues } });
}

/** The parts of a zod schema's definition the unknown-field walk reads. */
interface WalkedDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  options?: readonly z.ZodType[];
  left?: z.ZodType;
  right?: z.ZodType;
  getter?: () => z.ZodType;
}

/** Wrappers whose value is their inner schema's. */
const WRAPPERS = new Set(["optional", "nullable", "default", "prefault", "readonly", "nonoptional", "catch"]);

/** The deepest schema walked: bodies are shallow, a lazy schema may not be. */
const DEEPEST = 16;

/**
 * The fields of a JSON body that its schema does not know, each an issue naming it and, when one is near, the
 * closest known field (`Unknown field "graceSeconds"; did you mean "graceMinutes"?`). Every object of the schema is
 * strict this way, however it was declared (a `z.looseObject` or a catchall takes any field); values the schema
 * leaves open (`z.unknown()`, a record, an intent's payload) are not looked into.
 *
 * @example A unit mistaken
 * ```ts
 * import { z } from "zod";
 * import { unknownFields } from "./validation.ts";
 *
 * const reroll = z.object({ graceMinutes: z.number().optional() });
 * console.log(unknownFields(reroll, { graceSeconds: 10 }));
 * // [{ path: "graceSeconds", message: 'Unknown field "graceSeconds"; did you mean "graceMinutes"?' }]
 * ```
 *
 * @param schema The body's schema.
 * @param value The body as read.
 * @returns The issues, empty when every field is known.
 */
export function unknownFields(schema: z.ZodType, value: unknown): Issue[] {
  const issues = walk(schema, value, [], 0);
  return issues.length > MAX_ISSUES ? issues.slice(0, MAX_ISSUES) : issues;
}

/** Whether a schema may find an unknown field in a value, by schema (a schema never changes). */
const holdsFields = new WeakMap<z.ZodType, boolean>();

/**
 * Whether {@linkcode walk} may find an unknown field under a schema: an object somewhere in it (or a lazy schema, not
 * looked into). A field whose schema holds none (`z.unknown()`, a record, a scalar, such as a run's payload) is not
 * walked into, so every request's body does not pay for its path and its recursion.
 */
function mayHoldFields(schema: z.ZodType, depth = 0): boolean {
  const known = holdsFields.get(schema);
  if (known !== undefined) return known;
  const def = (schema as unknown as { _zod: { def: WalkedDef } })._zod.def;
  const inner = (other: z.ZodType | undefined) => other !== undefined && mayHoldFields(other, depth + 1);
  const holds = depth > DEEPEST || def.type === "object" || def.type === "lazy" ||
    (WRAPPERS.has(def.type) && inner(def.innerType)) || (def.type === "pipe" && inner(def.in)) ||
    (def.type === "intersection" && inner(def.left) && inner(def.right)) ||
    (def.type === "union" && (def.options ?? []).some((option) => inner(option))) ||
    (def.type === "array" && inner(def.element));
  holdsFields.set(schema, holds);
  return holds;
}

function walk(schema: z.ZodType, value: unknown, path: string[], depth: number): Issue[] {
  // A field is an object's or an array's: a string, a number, a boolean or null has none, whatever its schema.
  if (depth > DEEPEST || typeof value !== "object" || value === null) return [];
  const def = (schema as unknown as { _zod: { def: WalkedDef } })._zod.def;
  if (WRAPPERS.has(def.type) && def.innerType) return walk(def.innerType, value, path, depth + 1);
  if (def.type === "pipe" && def.in) return walk(def.in, value, path, depth + 1);
  if (def.type === "lazy" && def.getter) return walk(def.getter(), value, path, depth + 1);
  if (def.type === "intersection" && def.left && def.right) {
    return intersectionIssues(def.left, def.right, value, path, depth);
  }
  if (def.type === "union" && def.options) {
    const walked = def.options.map((option) => walk(option, value, path, depth + 1));
    // No option finds an unknown field (a JSON-RPC body: records): which options accept the value changes nothing,
    // and a refusing option's parse costs its error's building (2–7 µs on Deno and Node).
    if (walked.every((issues) => issues.length === 0)) return [];
    const accepting = walked.filter((_, i) => def.options![i].safeParse(value).success);
    return (accepting.length > 0 ? accepting : walked).reduce((best, issues) =>
      issues.length < best.length ? issues : best
    );
  }
  if (def.type === "array" && def.element && Array.isArray(value)) {
    const element = def.element;
    return value.flatMap((item, i) => walk(element, item, [...path, String(i)], depth + 1));
  }
  if (def.type !== "object" || !def.shape || !isPlainObject(value)) return [];
  const shape = def.shape;
  const open = def.catchall !== undefined &&
    (def.catchall as unknown as { _zod: { def: WalkedDef } })._zod.def.type !== "never";
  const issues: Issue[] = [];
  for (const key of Object.keys(value)) {
    const field = value[key];
    if (Object.hasOwn(shape, key)) {
      // Only an object or an array can hold an unknown field: a scalar's path is never built.
      if (typeof field === "object" && field !== null && mayHoldFields(shape[key])) {
        issues.push(...walk(shape[key], field, [...path, key], depth + 1));
      }
    } else if (!open) {
      issues.push(unknownField(key, Object.keys(shape), path));
    }
  }
  return issues;
}

/** An intersection knows the fields of both sides. */
function intersectionIssues(left: z.ZodType, right: z.ZodType, value: unknown, path: string[], depth: number): Issue[] {
  const fromLeft = walk(left, value, path, depth + 1);
  const fromRight = walk(right, value, path, depth + 1);
  return fromLeft.filter((issue) => fromRight.some((other) => other.path === issue.path));
}

function unknownField(key: string, known: readonly string[], path: readonly string[]): Issue {
  const name = key.slice(0, 100);
  const near = closestField(key, known);
  const hint = near === undefined ? "" : `; did you mean "${near}"?`;
  return { path: [...path, name].join("."), message: `Unknown field "${name}"${hint}` };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
