/**
 * How the default logger writes: one line per event, an ISO timestamp first.
 * An expected failure of the link to the cloud (it cannot be reached, it answers
 * 5xx, 429 or refuses the credentials) is written as one line with its reason
 * and no stack trace; anything else keeps its cause beside the line, for the
 * stack. Secrets are redacted before this (`redactingLogger`).
 *
 * @module
 */
import { isSvcError } from "../errors/mod.ts";
import { redactSecrets } from "../contract/mod.ts";

/** A line to print and, for an unexpected error, its cause to print beside it. */
export interface LogLine {
  /** `2026-11-25T11:00:00.000Z [svc] message`, with the reason of an expected failure. */
  line: string;
  /** The cause, kept for an unexpected error only. */
  cause?: unknown;
}

/** The longest reason written for an expected failure. */
const LONGEST_REASON = 300;

/**
 * The reason of an expected failure of the cloud link, or `undefined` for an unexpected error
 * (one to print with its stack).
 *
 * @example The cloud is down
 * ```ts
 * import { SvcError } from "../errors/mod.ts";
 * import { expectedFailure } from "./log_line.ts";
 *
 * const down = new SvcError("CLOUD_UNAVAILABLE", "The cloud answered 503", { cause: 503 });
 * console.log(expectedFailure(down)); // "The cloud answered 503"
 * ```
 *
 * @param cause What was thrown.
 * @returns The reason in one line, or `undefined`.
 */
export function expectedFailure(cause: unknown): string | undefined {
  if (!isSvcError(cause) || cause.code !== "CLOUD_UNAVAILABLE") return undefined;
  const inner = cause.cause;
  if (typeof inner === "number") return cause.message; // an answer's status
  if (inner instanceof Error || isErrorLike(inner)) {
    const { name, message } = inner as { name: string; message: string };
    if (name === "TimeoutError" || name === "AbortError") return `${cause.message} (${name})`;
    if (name === "TypeError") return `${cause.message} (${networkReason(inner) ?? firstLine(message)})`; // fetch failed
  }
  const envelope = inner as { code?: unknown; message?: unknown } | null | undefined;
  if (typeof envelope?.code === "string" && typeof envelope.message === "string") return cause.message; // an answer
  return undefined;
}

/**
 * The line the default logger prints for a message and its cause.
 *
 * @example An unexpected error keeps its cause
 * ```ts
 * import { logLine } from "./log_line.ts";
 *
 * console.log(logLine("storage could not be opened", new Error("disk"), new Date(0)).line);
 * // 1970-01-01T00:00:00.000Z [svc] storage could not be opened
 * ```
 *
 * @param message The message (already redacted).
 * @param cause The cause, if any.
 * @param at The time of the event.
 * @returns The line, and the cause when it is to be printed beside it.
 */
export function logLine(message: string, cause: unknown, at: Date): LogLine {
  const line = `${at.toISOString()} [svc] ${message}`;
  if (cause === undefined) return { line };
  const reason = expectedFailure(cause);
  if (reason === undefined) return { line, cause };
  return { line: `${line}: ${redactSecrets(reason).slice(0, LONGEST_REASON)}` };
}

/**
 * The end of a "reachable again" line.
 *
 * @example After 12.4 s
 * ```ts
 * import { reconnectedAfter } from "./log_line.ts";
 *
 * console.log(reconnectedAfter(12_400)); // "reconnected after 12 s"
 * ```
 *
 * @param downMs How long the link was down, in milliseconds.
 * @returns `reconnected after N s`.
 */
export function reconnectedAfter(downMs: number): string {
  return `reconnected after ${Math.round(Math.max(0, downMs) / 1000)} s`;
}

function isErrorLike(value: unknown): boolean {
  return typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string" &&
    typeof (value as { message?: unknown }).message === "string";
}

/**
 * A system error code (`ECONNREFUSED`, `ENOTFOUND`, Bun's `ConnectionRefused`) in a cause chain, else the message of
 * its innermost cause (Node's fetch says only "fetch failed", its cause says why).
 */
function networkReason(error: unknown): string | undefined {
  let innermost: string | undefined;
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const message = (e as { message?: unknown }).message;
    if (depth > 0 && typeof message === "string") innermost = firstLine(message);
    e = (e as { cause?: unknown }).cause;
  }
  return innermost;
}

function firstLine(text: string): string {
  return text.split("\n")[0];
}
