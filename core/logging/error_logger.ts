/**
 * Where both sides log unexpected errors: the logger's type and the default (`console.error`).
 *
 * @module
 */
import { logLine } from "./log_line.ts";
import { PLATFORM } from "../platform/mod.ts";

/** Where unexpected errors go. Only causes of 5xx answers are passed here. */
export type ErrorLogger = (message: string, cause: unknown) => void;

/**
 * The default logger of both sides: `console.error`, one line per event with an ISO timestamp and `[svc]`
 * first; an expected failure of the cloud link has its reason on the line and no stack, anything else its
 * cause beside the line ({@linkcode logLine}).
 *
 * @param message What failed.
 * @param cause Why (never a secret).
 */
export function defaultLogger(message: string, cause: unknown): void {
  const { line, cause: kept } = logLine(message, cause, new Date(PLATFORM.now()));
  if (kept === undefined) console.error(line);
  else console.error(line, kept);
}
