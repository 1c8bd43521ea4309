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
  if (!isSvcError(error) || error.code !== "FORBIDDEN_SCOPE") return error;
  const needed = deps.intents.get(intent)?.requiredScopes;
  if (needed === undefined) return error;
  const challenge = await deps.scopeChallenge(req, key, needed);
  if (challenge === null) return error;
  return new SvcError("FORBIDDEN_SCOPE", error.message, {
    details: error.details,
    headers: { ...error.headers, "www-authenticate": challenge },
  });
}
