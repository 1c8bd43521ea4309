/**
 * A logger that never lets a secret-shaped token through: messages and causes are redacted.
 *
 * @module
 */
import { redactSecrets } from "../contract/mod.ts";
import type { ErrorLogger } from "./error_logger.ts";

/**
 * Wraps a logger so that no secret-shaped token reaches it: the message is
 * redacted, and so is the cause: an Error's message, stack, own fields and
 * its `cause` chain (and an AggregateError's `errors`), strings, and plain
 * objects and arrays, up to {@linkcode REDACT_DEPTH} levels deep (deeper
 * values are replaced by a note). A cause with nothing to redact is passed
 * as it is; one with something is passed as a copy (an Error of the same
 * name, message, stack and fields, redacted), so the log keeps its use.
 *
 * @param log The logger to protect.
 * @returns The redacting logger.
 */
export function redactingLogger(log: ErrorLogger): ErrorLogger {
  return (message, cause) => log(redactSecrets(message), redactCause(cause, 0));
}

/** How deep the redacting logger follows a cause: nested causes, errors, fields. */
export const REDACT_DEPTH = 8;

/** What stands for a value nested deeper than {@linkcode REDACT_DEPTH}. */
const TOO_DEEP = "[nested too deep to log]";

/** The value with every secret-shaped token redacted; the same value when it holds none. */
function redactCause(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactSecrets(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth >= REDACT_DEPTH) return TOO_DEEP;
  if (value instanceof Error) return redactError(value, depth);
  if (Array.isArray(value)) {
    const copy = value.map((v) => redactCause(v, depth + 1));
    return copy.every((v, i) => v === value[i]) ? value : copy;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value; // a class instance: logged as it is
  const entries = Object.entries(value);
  const copy = entries.map(([k, v]) => [k, redactCause(v, depth + 1)] as const);
  return copy.every(([, v], i) => v === entries[i][1]) ? value : Object.fromEntries(copy);
}

function redactError(error: Error, depth: number): Error {
  const message = redactSecrets(error.message);
  const stack = error.stack === undefined ? undefined : redactSecrets(error.stack);
  const cause = "cause" in error ? redactCause(error.cause, depth + 1) : undefined;
  const errors = error instanceof AggregateError ? redactCause(error.errors, depth + 1) : undefined;
  const fields = Object.entries(error).filter(([k]) => !["message", "stack", "cause", "errors"].includes(k));
  const redactedFields = fields.map(([k, v]) => [k, redactCause(v, depth + 1)] as const);
  const unchanged = message === error.message && stack === error.stack && cause === error.cause &&
    (!(error instanceof AggregateError) || errors === error.errors) &&
    redactedFields.every(([, v], i) => v === fields[i][1]);
  if (unchanged) return error;
  const copy = error instanceof AggregateError ? new AggregateError(errors as unknown[], message) : new Error(message);
  copy.name = error.name;
  copy.stack = stack;
  if ("cause" in error) copy.cause = cause;
  for (const [k, v] of redactedFields) (copy as unknown as Record<string, unknown>)[k] = v;
  return copy;
}
