/**
 * Where both sides log unexpected errors: the logger's type and the default (`console.error`).
 *
 * @module
 */

/** Where unexpected errors go. Only causes of 5xx answers are passed here. */
export type ErrorLogger = (message: string, cause: unknown) => void;

/**
 * The default logger of both sides: `console.error`, prefixed `[svc]`.
 *
 * @param message What failed.
 * @param cause Why (never a secret).
 */
export function defaultLogger(message: string, cause: unknown): void {
  if (cause === undefined) console.error(`[svc] ${message}`);
  else console.error(`[svc] ${message}`, cause);
}
