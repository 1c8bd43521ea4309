/**
 * The HTTP envelope shared by `/svc` and `/v1`: JSON responses, the error
 * envelope, and reading a JSON body under a size limit.
 *
 * @module
 */
import { isSvcError, SvcError } from "../contract/errors.ts";
import { redactSecrets } from "../contract/secrets.ts";
import { readBody } from "./bytes.ts";
import { logLine } from "./log_line.ts";

/** Where unexpected errors go. Only causes of 5xx answers are passed here. */
export type ErrorLogger = (message: string, cause: unknown) => void;

/** The default size limit of a request body: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

const JSON_HEADERS = { "content-type": "application/json" } as const;

/**
 * Builds a JSON response.
 *
 * @param body Any JSON-serialisable value.
 * @param status The HTTP status, 200 by default.
 * @param headers Extra headers.
 * @returns The response.
 */
export function json(body: unknown, status = 200, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
  });
}

/**
 * Turns any thrown value into the contract's error envelope. Unknown values
 * become a generic `INTERNAL` 500 and their cause goes to `log`, never to the client.
 *
 * @param error Anything thrown.
 * @param log Where the causes of 5xx answers are written.
 * @returns The error response.
 */
export function errorResponse(error: unknown, log: ErrorLogger = defaultLogger): Response {
  const { status, headers, body } = errorEnvelope(error, log);
  return json(body, status, headers);
}

/** The contract's error body. */
export interface ErrorEnvelope {
  /** Always `false`. */
  ok: false;
  /** The machine code, a safe message and optional details. */
  error: { code: string; message: string; details?: unknown };
}

/**
 * Turns any thrown value into the contract's error envelope and its status,
 * for transports that do not answer with a plain JSON response (MCP tool errors).
 *
 * @param error Anything thrown.
 * @param log Where the causes of 5xx answers are written.
 * @returns The status, extra headers and body.
 */
export function errorEnvelope(
  error: unknown,
  log: ErrorLogger = defaultLogger,
): { status: number; headers?: Record<string, string>; body: ErrorEnvelope } {
  const err = isSvcError(error) ? error : new SvcError("INTERNAL", "Internal error", { cause: error });
  if (err.status >= 500 && err.cause !== undefined) log(`${err.code}: ${err.message}`, err.cause);
  // Messages and details may echo request values: a secret sent in the wrong place is not echoed back.
  const body: ErrorEnvelope["error"] = { code: err.code, message: redactSecrets(err.message) };
  if (err.details !== undefined) {
    const text = JSON.stringify(err.details);
    const redacted = redactSecrets(text);
    body.details = redacted === text ? err.details : JSON.parse(redacted);
  }
  return { status: err.status, headers: err.headers, body: { ok: false, error: body } };
}

/**
 * The default logger of both sides: `console.error`, one line per event with an ISO timestamp and `[svc]`
 * first; an expected failure of the cloud link has its reason on the line and no stack, anything else its
 * cause beside the line ({@linkcode logLine}).
 *
 * @param message What failed.
 * @param cause Why (never a secret).
 */
export function defaultLogger(message: string, cause: unknown): void {
  const { line, cause: kept } = logLine(message, cause, new Date());
  if (kept === undefined) console.error(line);
  else console.error(line, kept);
}

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

/**
 * Reads a request body as JSON, enforcing `Content-Type: application/json` and
 * a byte limit while reading, so that an oversized body is never buffered whole.
 *
 * @param req The request.
 * @param limit The largest body accepted, in bytes.
 * @returns The parsed value.
 * @throws {SvcError} `INVALID_JSON` or `PAYLOAD_TOO_LARGE`.
 */
export async function readJson(req: Request, limit: number = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const type = req.headers.get("content-type");
  if (type === null || !/^application\/json\s*(;|$)/i.test(type)) {
    throw new SvcError("INVALID_JSON", "Content-Type must be application/json");
  }
  const bytes = await readBody(req, limit);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SvcError("INVALID_JSON", "Request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SvcError("INVALID_JSON", "Request body is not valid JSON");
  }
}
