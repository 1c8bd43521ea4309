/**
 * The `FORBIDDEN_SCOPE` refusal of a registered intent and the scopes a key
 * lacks, built once per pair and reused (its answer then prebuilt, see
 * core/http/prebuilt_refusals.ts): a key hammering an intent outside its scopes
 * costs no error, envelope or JSON per request. The pairs are few (the registry's
 * intents times the scope sets of keys); the cache is bounded all the same.
 * A key's record is kept between its requests, so the refusal is also found by
 * the key's own list of scopes: a repeated refusal builds no list or name.
 *
 * @module
 */
import { SvcError } from "../errors/mod.ts";
import { reusableRefusal } from "../http/mod.ts";

/** Pairs of intent and missing scopes kept; past it the oldest is dropped. */
export const FORBIDDEN_SCOPE_ERRORS_MAX = 1000;

/**
 * Creates the cache of one runner.
 *
 * @example The same refusal for the same pair
 * ```ts
 * import { forbiddenScopeErrors } from "./forbidden_scope_errors.ts";
 *
 * const forbidden = forbiddenScopeErrors();
 * const refusal = forbidden("notes.create", ["notes:write"], ["notes:read"]);
 * console.log(refusal === forbidden("notes.create", ["notes:write"], ["notes:read"])); // true
 * console.log(refusal.details); // { missingScopes: ["notes:write"] }
 * ```
 *
 * @param max Pairs kept. Default {@linkcode FORBIDDEN_SCOPE_ERRORS_MAX}.
 * @returns `(intent, requiredScopes, heldScopes) => error`, for intents of the registry only (their names are
 *   bounded) and keys that lack one of their required scopes.
 */
export function forbiddenScopeErrors(
  max: number = FORBIDDEN_SCOPE_ERRORS_MAX,
): (intent: string, required: readonly string[], held: readonly string[]) => SvcError {
  const errors = new Map<string, SvcError>();
  /** By a key's list of scopes (the same array while its record is kept), then by intent: weak, so never stale. */
  const byHeld = new WeakMap<readonly string[], Map<string, SvcError>>();
  return (intent, required, held) => {
    const ofHeld = byHeld.get(held);
    const found = ofHeld?.get(intent);
    if (found !== undefined) return found;
    const missingScopes = required.filter((s) => !held.includes(s));
    const id = `${intent}\u0000${missingScopes.join("\u0000")}`;
    let error = errors.get(id);
    if (error === undefined) {
      error = reusableRefusal(
        new SvcError("FORBIDDEN_SCOPE", `This key lacks scopes required by "${intent}"`, {
          details: { missingScopes },
        }),
      );
      if (errors.size >= max) errors.delete(errors.keys().next().value!);
      errors.set(id, error);
    }
    if (ofHeld === undefined) byHeld.set(held, new Map([[intent, error]]));
    else ofHeld.set(intent, error);
    return error;
  };
}
