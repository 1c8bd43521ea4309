/**
 * The unknown-intent error: it names the closest intent of the registry (by edit
 * distance) and the route that lists them all, so an agent or its author can fix
 * a typo without reading the source.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";

/** The route that lists every intent an agent key can see. */
export const INTENTS_URL = "/svc/agent/intents";

/** Names longer than this are not compared (the distance costs their product). */
const LONGEST_COMPARED = 200;

/**
 * The Levenshtein distance: how many one-character insertions, deletions or substitutions turn `a` into `b`.
 *
 * @example A swapped pair of letters is two edits
 * ```ts
 * import { editDistance } from "./intent_suggestion.ts";
 *
 * console.log(editDistance("notes.create", "notes.craete")); // 2
 * ```
 *
 * @param a One string.
 * @param b The other.
 * @returns The number of edits.
 */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * The registered name closest to an unknown one, if it is close enough: at most a third of the name's
 * length in edits (at least 2), case ignored.
 *
 * @example A typo
 * ```ts
 * import { closestIntent } from "./intent_suggestion.ts";
 *
 * console.log(closestIntent("notes.craete", ["notes.create", "notes.list"])); // "notes.create"
 * ```
 *
 * @param name The unknown name.
 * @param names The registered names.
 * @returns The closest name, or `undefined` when none is close.
 */
export function closestIntent(name: string, names: Iterable<string>): string | undefined {
  if (name.length > LONGEST_COMPARED) return undefined;
  const wanted = name.toLowerCase();
  const within = Math.max(2, Math.floor(name.length / 3));
  let best: { name: string; distance: number } | undefined;
  for (const candidate of names) {
    if (Math.abs(candidate.length - name.length) > within || candidate.length > LONGEST_COMPARED) continue;
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance <= within && (best === undefined || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name;
}

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
  const didYouMean = closestIntent(name, names);
  const hint = didYouMean === undefined ? "" : ` Did you mean "${didYouMean}"?`;
  return new SvcError(
    "UNKNOWN_INTENT",
    `Unknown intent "${name.slice(0, 200)}".${hint} GET ${INTENTS_URL} lists the intents.`,
    { details: didYouMean === undefined ? { intentsUrl: INTENTS_URL } : { didYouMean, intentsUrl: INTENTS_URL } },
  );
}
