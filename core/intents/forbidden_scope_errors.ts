/**
 * The `FORBIDDEN_SCOPE` refusal of a registered intent and the scopes a key
 * lacks, built once per pair and reused (its answer then prebuilt, see
 * core/http/prebuilt_refusals.ts): a key hammering an intent outside its scopes
 * costs no error, envelope or JSON per request. The pairs are few (the registry's
 * intents times the scope sets of keys); the cache is bounded all the same.
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
 * console.log(forbidden("notes.create", ["notes:write"]) === forbidden("notes.create", ["notes:write"])); // true
 * ```
 *
 * @param max Pairs kept. Default {@linkcode FORBIDDEN_SCOPE_ERRORS_MAX}.
 * @returns `(intent, missingScopes) => error`, for intents of the registry only (their names are bounded).
 */
export function forbiddenScopeErrors(
  max: number = FORBIDDEN_SCOPE_ERRORS_MAX,
): (intent: string, missingScopes: string[]) => SvcError {
  const errors = new Map<string, SvcError>();
  return (intent, missingScopes) => {
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
    return error;
  };
}
