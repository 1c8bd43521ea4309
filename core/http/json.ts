/**
 * The HTTP envelope shared by `/svc` and `/v1`: JSON responses, the error
 * envelope, and reading a JSON body under a size limit.
 *
 * @module
 */
import { isSvcError, SvcError } from "../errors/mod.ts";
import { redactSecrets } from "../contract/mod.ts";
import { readBody } from "./bytes.ts";
import { keepAnswer, prebuiltAnswer } from "./prebuilt_refusals.ts";
import { textResponse } from "./text_response.ts";
import { defaultLogger, type ErrorLogger } from "../logging/mod.ts";
import { storageError } from "../db/mod.ts";

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
  return textResponse(JSON.stringify(body), {
    status,
    headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS,
  });
}

/**
 * Turns any thrown value into the contract's error envelope. A full disk or a
 * locked database becomes `507 STORAGE_FULL` or `503 STORAGE_BUSY`; other unknown values
 * become a generic `INTERNAL` 500. Causes of 5xx answers go to `log`, never to the client.
 *
 * @param error Anything thrown.
 * @param log Where the causes of 5xx answers are written.
 * @returns The error response.
 */
export function errorResponse(error: unknown, log: ErrorLogger = defaultLogger): Response {
  const prebuilt = prebuiltAnswer(error);
  if (prebuilt !== undefined) return prebuilt;
  const { status, headers, body } = errorEnvelope(error, log);
  const text = JSON.stringify(body);
  const init = { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS };
  keepAnswer(error, text, init);
  return textResponse(text, init);
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
  const err = isSvcError(error)
    ? error
    : storageError(error) ?? new SvcError("INTERNAL", "Internal error", { cause: error });
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
/** One strict decoder for every body (a decode without `stream` keeps no state between calls). */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

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
    text = UTF8.decode(bytes);
  } catch {
    throw new SvcError("INVALID_JSON", "Request body is not valid UTF-8");
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new SvcError("INVALID_JSON", "Request body is not valid JSON");
  }
}
