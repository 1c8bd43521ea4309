/**
 * Scope step-up: a `FORBIDDEN_SCOPE` refusal of a key that is an OAuth access token becomes the `403` with
 * `WWW-Authenticate: Bearer error="insufficient_scope", scope="…", resource_metadata="…"` an MCP client answers by
 * authorizing again with the wider scope (MCP 2025-11-25, "Scope Challenge Handling"). The refusal itself, its
 * violation record and the order key → scopes → schema → handler stay the intent runner's.
 *
 * @module
 */
import { isSvcError, SvcError } from "../../errors/mod.ts";
import type { VerifiedKey } from "../../keys/mod.ts";
import type { AppDeps } from "./app_side.ts";

/**
 * Whether a refusal may gain the step-up challenge: a `FORBIDDEN_SCOPE` refusal of a registered intent, in an app
 * with `oauth` (whether the key is an OAuth access token is then {@linkcode stepUpRefusal}'s to look up). Answered
 * without waiting, so that any other refusal is answered at once.
 *
 * @param error What the intent runner refused with.
 * @param intent The intent called.
 * @param deps The app's services (`scopeChallenge`, the registry).
 * @returns `false` when the refusal is answered as it is.
 */
export function mayStepUp(error: unknown, intent: string, deps: Pick<AppDeps, "scopeChallenge" | "intents">): boolean {
  return deps.scopeChallenge !== null && isSvcError(error) && error.code === "FORBIDDEN_SCOPE" &&
    deps.intents.has(intent);
}

/**
 * The error to answer with: a `FORBIDDEN_SCOPE` refusal of an OAuth access token gains the step-up challenge;
 * anything else (another error, a pasted key, an app without `oauth`) is returned as it is.
 *
 * @param error What the intent runner threw.
 * @param req The request (its origin and path name the resource metadata).
 * @param key The caller's key.
 * @param intent The intent called.
 * @param deps The app's services (`scopeChallenge`, the registry).
 * @returns The error to throw.
 *
 * @example Rethrow a run's refusal with its challenge
 * ```ts ignore
 * try {
 *   return await deps.runner.run(key, intent, payload);
 * } catch (error) {
 *   throw await stepUpRefusal(error, req, key, intent, deps);
 * }
 * ```
 */
export async function stepUpRefusal(
  error: unknown,
  req: Request,
  key: VerifiedKey,
  intent: string,
  deps: Pick<AppDeps, "scopeChallenge" | "intents">,
): Promise<unknown> {
  if (!mayStepUp(error, intent, deps)) return error;
  const refusal = error as SvcError;
  const challenge = await deps.scopeChallenge!(req, key, deps.intents.get(intent)!.requiredScopes);
  if (challenge === null) return error;
  return new SvcError("FORBIDDEN_SCOPE", refusal.message, {
    details: refusal.details,
    headers: { ...refusal.headers, "www-authenticate": challenge },
  });
}
