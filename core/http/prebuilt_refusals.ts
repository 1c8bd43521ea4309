/**
 * Refusals answered from prebuilt bytes: an error marked reusable (a fixed
 * refusal such as "Invalid agent key", thrown again and again) is turned into
 * its envelope once, on its first answer; every later answer is a new Response
 * over the same text and headers, with no envelope, redaction or JSON work.
 *
 * @module
 */
import { type KeptAnswer, keptResponse } from "./text_response.ts";

/** Reusable errors, with their answer once built (`null` until the first answer). */
const reusable = new WeakMap<object, KeptAnswer | null>();

/**
 * Marks an error as reusable: the same object is thrown for every request it
 * refuses, so nothing may be added to it per request (no cause, no request value).
 *
 * @example A refusal built once
 * ```ts
 * import { SvcError } from "../errors/mod.ts";
 * import { reusableRefusal } from "./prebuilt_refusals.ts";
 *
 * const INVALID = reusableRefusal(new SvcError("UNAUTHORIZED", "Invalid agent key"));
 * ```
 *
 * @param error The error.
 * @returns The same error.
 */
export function reusableRefusal<E extends object>(error: E): E {
  if (!reusable.has(error)) reusable.set(error, null);
  return error;
}

/**
 * The answer of a reusable refusal already answered once.
 *
 * @param error Anything thrown.
 * @returns A fresh Response over the prebuilt text (see {@linkcode keptResponse}), or `undefined` (not reusable, or
 *   not answered yet).
 */
export function prebuiltAnswer(error: unknown): Response | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const answer = reusable.get(error);
  return answer ? keptResponse(answer) : undefined;
}

/**
 * Keeps the answer of a reusable refusal (nothing happens for any other error).
 *
 * @param error The error just answered.
 * @param text Its envelope, as JSON text.
 * @param init Its status and headers.
 */
export function keepAnswer(error: unknown, text: string, init: ResponseInit): void {
  if (typeof error === "object" && error !== null && reusable.get(error) === null) reusable.set(error, { text, init });
}
