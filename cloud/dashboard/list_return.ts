/**
 * Returning to a filtered list after an action: the list's query (its filters and page) travels with the action's
 * form, so the redirect lands on the same filtered view. Only a query string is kept, never a path, so it cannot
 * send the browser elsewhere.
 *
 * @module
 */

/** The form field that carries the list's query. */
export const RETURN_FIELD = "back";

/** Longest query kept (the filters are short; a longer one is dropped). */
const MAX_QUERY = 1000;

/**
 * A list's query as it was, without the notice of the last action, ready to follow `?`.
 *
 * @param query The query string (with or without its leading `?`), or `null`.
 * @param drop Parameters that announce an action done, left out (`revoked`).
 * @returns The query string without `?`, empty when there is none.
 * @example
 * ```ts
 * keptQuery("?user=alice&status=active&revoked=1", ["revoked"]); // "user=alice&status=active"
 * ```
 */
export function keptQuery(query: string | null, drop: readonly string[] = []): string {
  if (query === null || query.length > MAX_QUERY) return "";
  const params = new URLSearchParams(query.startsWith("?") ? query.slice(1) : query);
  for (const name of drop) params.delete(name);
  return params.toString();
}

/**
 * The path of a list with its kept query and a notice parameter.
 *
 * @param path The list's path.
 * @param query The kept query ({@linkcode keptQuery}).
 * @param notice The notice parameter to add, such as `revoked=1`.
 * @returns The path and query.
 */
export function listPath(path: string, query: string, notice: string): string {
  return `${path}?${query ? `${query}&` : ""}${notice}`;
}
