/**
 * Validation of request values against zod schemas, with failures turned into
 * the contract's `details.issues: [{ path, message }]`.
 *
 * @module
 */
import type { z } from "zod";
import { type ErrorCode, SvcError } from "../errors/mod.ts";

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
