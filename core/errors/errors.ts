/**
 * The one error type of the toolkit: a stable machine code, its HTTP status,
 * a message that is safe to show, optional details, and the private cause.
 *
 * @module
 */

/** Every error code the toolkit answers with, as in the wire contract. */
export type ErrorCode =
  | "UNAUTHORIZED"
  | "FORBIDDEN_SCOPE"
  | "NOT_FOUND"
  | "UNKNOWN_INTENT"
  | "METHOD_NOT_ALLOWED"
  | "VALIDATION_ERROR"
  | "INVALID_JSON"
  | "INTENT_VALIDATION_ERROR"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "INTENT_FAILED"
  | "RESULT_VALIDATION_ERROR"
  | "CLOUD_UNAVAILABLE"
  | "CLOUD_CREDENTIALS_REFUSED"
  | "REVOCATION_FEED_STALE"
  | "STORAGE_UNAVAILABLE"
  | "STORAGE_FULL"
  | "STORAGE_BUSY"
  | "APPROVAL_PENDING_LIMIT"
  | "ALREADY_DECIDED"
  | "UNREACHABLE"
  | "INTERNAL";

/** The HTTP status of each error code: the single place that maps one to the other. */
export const ERROR_STATUS: Readonly<Record<ErrorCode, number>> = {
  UNAUTHORIZED: 401,
  FORBIDDEN_SCOPE: 403,
  NOT_FOUND: 404,
  UNKNOWN_INTENT: 404,
  METHOD_NOT_ALLOWED: 405,
  VALIDATION_ERROR: 400,
  INVALID_JSON: 400,
  INTENT_VALIDATION_ERROR: 400,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTENT_FAILED: 500,
  RESULT_VALIDATION_ERROR: 500,
  CLOUD_UNAVAILABLE: 503,
  // A hybrid or cloud-mode app whose sdkSecret the cloud refuses cannot hear revocations: its agent routes refuse.
  CLOUD_CREDENTIALS_REFUSED: 503,
  // A hybrid app that has not completed a feed poll for longer than `cloud.maxRevocationLagMs`.
  REVOCATION_FEED_STALE: 503,
  STORAGE_UNAVAILABLE: 503,
  // The database cannot grow (its disk is full): 507 Insufficient Storage, with Retry-After.
  STORAGE_FULL: 507,
  // The database stayed locked past its busy timeout, with Retry-After.
  STORAGE_BUSY: 503,
  // A key with `approvals.maxPendingPerKey` approvals waiting asks for one more.
  APPROVAL_PENDING_LIMIT: 429,
  // A decision on an approval that is no longer pending (decided, expired or cancelled).
  ALREADY_DECIDED: 409,
  // Never answered by a server: the agent client throws it when the app or the cloud cannot be reached.
  UNREACHABLE: 503,
  INTERNAL: 500,
};

/** Options of {@linkcode SvcError}. */
export interface SvcErrorOptions {
  /** Machine-readable details sent to the client (for example `issues`). */
  details?: unknown;
  /** The private cause: logged, never sent. */
  cause?: unknown;
  /** Extra response headers, such as `Allow` or `Retry-After`. */
  headers?: Record<string, string>;
}

/**
 * An error that knows how to become the contract's error envelope.
 *
 * @example Refuse a request
 * ```ts
 * import { SvcError } from "@svc/agent-access";
 * const err = new SvcError("NOT_FOUND", "No such key");
 * console.log(err.status); // 404
 * ```
 */
export class SvcError extends Error {
  /** The stable machine code. */
  readonly code: ErrorCode;
  /** The HTTP status of {@linkcode SvcError.code}. */
  readonly status: number;
  /** Details sent to the client, if any. */
  readonly details?: unknown;
  /** Extra response headers. */
  readonly headers?: Record<string, string>;

  /**
   * Creates an error.
   *
   * @param code The machine code; the status follows from it.
   * @param message A message that is safe to show to the caller.
   * @param options Details, private cause and extra headers.
   */
  constructor(code: ErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "SvcError";
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = options.details;
    this.headers = options.headers;
  }
}

/**
 * Tells whether a value is an {@linkcode SvcError}, by shape as well as by
 * class, so that two copies of this package still recognise each other's errors.
 *
 * @param value Anything thrown.
 * @returns `true` when the value carries a known code and its status.
 *
 * @example Recognise an error
 * ```ts
 * import { isSvcError, SvcError } from "@svc/agent-access";
 * console.log(isSvcError(new SvcError("INTERNAL", "x"))); // true
 * ```
 */
export function isSvcError(value: unknown): value is SvcError {
  if (value instanceof SvcError) return true;
  if (typeof value !== "object" || value === null) return false;
  const { name, code, status } = value as Record<string, unknown>;
  return name === "SvcError" && typeof code === "string" && code in ERROR_STATUS &&
    status === ERROR_STATUS[code as ErrorCode];
}
