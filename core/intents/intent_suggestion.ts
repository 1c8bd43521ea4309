/**
 * The unknown-intent error: it names the closest intent of the registry (by edit
 * distance, core/contract's `closestName`) and the route that lists them all, so an agent or its author can fix
 * a typo without reading the source.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import { closestName } from "../contract/mod.ts";

/** The route that lists every intent an agent key can see. */
export const INTENTS_URL = "/svc/agent/intents";

/**
 * The 404 `UNKNOWN_INTENT` error, with `details: { didYouMean?, intentsUrl }`.
 *
 * @example An intent name with a typo
 * ```ts
 * import { unknownIntentError } from "./intent_suggestion.ts";
 *
 * const error = unknownIntentError("notes.craete", ["notes.create"]);
 * console.log(error.message); // Unknown intent "notes.craete". Did you mean "notes.create"? GET /svc/agent/intents …
 * ```
 *
 * @param name The unknown name.
 * @param names The registered names.
 * @returns The error to throw.
 */
export function unknownIntentError(name: string, names: Iterable<string>): SvcError {
  const didYouMean = closestName(name, names);
  const hint = didYouMean === undefined ? "" : ` Did you mean "${didYouMean}"?`;
  return new SvcError(
    "UNKNOWN_INTENT",
    `Unknown intent "${name.slice(0, 200)}".${hint} GET ${INTENTS_URL} lists the intents.`,
    { details: didYouMean === undefined ? { intentsUrl: INTENTS_URL } : { didYouMean, intentsUrl: INTENTS_URL } },
  );
}
