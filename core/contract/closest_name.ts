/**
 * The known name closest to an unknown one (by Levenshtein distance), for "did you mean" hints: the unknown-intent
 * error and the unknown-field issue of a strict body.
 *
 * @module
 */

/** Names longer than this are not compared (the distance costs their product). */
const LONGEST_COMPARED = 200;

/**
 * The Levenshtein distance: how many one-character insertions, deletions or substitutions turn `a` into `b`.
 *
 * @example A swapped pair of letters is two edits
 * ```ts
 * import { editDistance } from "./closest_name.ts";
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
 * The known name closest to an unknown one, if it is close enough: at most a third of the name's
 * length in edits (at least 2), case ignored.
 *
 * @example A typo
 * ```ts
 * import { closestName } from "./closest_name.ts";
 *
 * console.log(closestName("notes.craete", ["notes.create", "notes.list"])); // "notes.create"
 * ```
 *
 * @param name The unknown name.
 * @param names The known names.
 * @returns The closest name, or `undefined` when none is close.
 */
export function closestName(name: string, names: Iterable<string>): string | undefined {
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

/** A name's words: camelCase, snake_case, kebab-case and dotted parts, lower-cased. */
function wordsOf(name: string): string[] {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/**
 * The known field closest to an unknown one: {@linkcode closestName}'s, else the nearest field that shares a word
 * with it (`graceSeconds` → `graceMinutes`: a unit mistaken is a whole word apart).
 *
 * @example A unit mistaken
 * ```ts
 * import { closestField } from "./closest_name.ts";
 *
 * console.log(closestField("graceSeconds", ["graceMinutes"])); // "graceMinutes"
 * ```
 *
 * @param name The unknown field.
 * @param fields The known fields.
 * @returns The closest field, or `undefined` when none is near.
 */
export function closestField(name: string, fields: readonly string[]): string | undefined {
  const close = closestName(name, fields);
  if (close !== undefined || name.length > LONGEST_COMPARED) return close;
  const words = new Set(wordsOf(name));
  let best: { name: string; distance: number } | undefined;
  for (const field of fields) {
    if (field.length > LONGEST_COMPARED || !wordsOf(field).some((w) => words.has(w))) continue;
    const distance = editDistance(name.toLowerCase(), field.toLowerCase());
    if (best === undefined || distance < best.distance) best = { name: field, distance };
  }
  return best?.name;
}
