/**
 * Schemas for untrusted values that are stored: text that must survive the
 * database unchanged, and free-form JSON objects bounded in size and depth.
 * Depth is measured without recursion, so a value nested 500,000 levels deep
 * is refused instead of overflowing the stack when it is serialised.
 *
 * @module
 */
import { z } from "zod";

/** The bounds of a free-form JSON object. */
export interface JsonLimits {
  /** Largest serialised size, in UTF-8 bytes. */
  maxBytes: number;
  /** Deepest nesting of objects and arrays; the object itself is depth 1. */
  maxDepth: number;
}

/** Violation metadata: 16 KiB serialised, 10 levels deep. */
export const METADATA_LIMITS: JsonLimits = { maxBytes: 16 * 1024, maxDepth: 10 };
/** Event payloads: 64 KiB serialised, 32 levels deep. */
export const PAYLOAD_LIMITS: JsonLimits = { maxBytes: 64 * 1024, maxDepth: 32 };
/** The JSON Schema of one intent's input or output: 64 KiB serialised, 64 levels deep. */
export const SCHEMA_LIMITS: JsonLimits = { maxBytes: 64 * 1024, maxDepth: 64 };

const encoder = new TextEncoder();

/**
 * Text of `min`..`max` characters that is well-formed Unicode without NUL. A
 * lone surrogate would be replaced on its way into the database, so two
 * different values could become one (two events with one id); a NUL cuts the
 * text short when it is read back.
 *
 * @param min Fewest characters.
 * @param max Most characters.
 * @returns The schema.
 */
export function storedText(min: number, max: number): z.ZodString {
  return z.string().min(min).max(max).refine(storable, "Must be well-formed Unicode without NUL characters");
}

/**
 * A JSON object within `limits`.
 *
 * @param limits Size and depth bounds.
 * @returns The schema.
 */
export function boundedJsonObject(limits: JsonLimits): z.ZodType<Record<string, unknown>> {
  return z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const depth = jsonDepth(value, limits.maxDepth);
    if (depth > limits.maxDepth) {
      ctx.addIssue({ code: "custom", message: `Must be nested at most ${limits.maxDepth} levels deep` });
      return;
    }
    // A UTF-16 code unit is at most 3 UTF-8 bytes: text that short is within the bound without encoding it.
    const text = JSON.stringify(value);
    if (text.length * 3 > limits.maxBytes && encoder.encode(text).byteLength > limits.maxBytes) {
      ctx.addIssue({ code: "custom", message: `Must be at most ${limits.maxBytes} bytes as JSON` });
    }
  });
}

/**
 * How deeply objects and arrays nest in a value, walked with an explicit
 * stack and given up as soon as it passes `stopAfter`.
 *
 * @param value A parsed JSON value.
 * @param stopAfter The depth beyond which the exact figure does not matter.
 * @returns The depth (scalars 0), or `stopAfter + 1` when deeper.
 */
export function jsonDepth(value: unknown, stopAfter: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth > stopAfter) return stopAfter + 1;
    if (depth > deepest) deepest = depth;
    for (const child of Object.values(item)) {
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

function storable(text: string): boolean {
  // `isWellFormed`: no lone surrogate (as `/\p{Surrogate}/u` finds none), without a regular expression's cost.
  return !text.includes("\u0000") && text.isWellFormed();
}
