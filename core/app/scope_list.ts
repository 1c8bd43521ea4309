/**
 * The `scopes` option: the scope names an app supports, each with what it allows in the user's words when the app
 * says so (the consent page shows it).
 *
 * @module
 */

/** A scope and what it allows. */
export interface ScopeDefinition {
  /** The scope's name, as keys and intents carry it (`notes:write`). */
  name: string;
  /** What it allows, for the user deciding on the consent page ("Create and change your notes"). */
  description?: string;
}

/**
 * The `scopes` option: names (`["notes:read"]`), definitions (`[{ name, description }]`, mixed with names), or an
 * object of descriptions keyed by name (`{ "notes:write": "Create and change your notes" }`).
 */
export type ScopeList = readonly (string | ScopeDefinition)[] | Readonly<Record<string, string>>;

/**
 * Every scope of the option, with its description when it has one, in the order given.
 *
 * @param scopes The `scopes` option.
 * @returns The definitions.
 *
 * @example Descriptions keyed by name
 * ```ts
 * import { scopeDefinitions } from "./scope_list.ts";
 * scopeDefinitions({ "notes:write": "Create and change your notes" });
 * // [{ name: "notes:write", description: "Create and change your notes" }]
 * ```
 */
export function scopeDefinitions(scopes: ScopeList): ScopeDefinition[] {
  if (!Array.isArray(scopes)) {
    return Object.entries(scopes as Record<string, string>).map(([name, description]) => ({ name, description }));
  }
  return (scopes as readonly (string | ScopeDefinition)[]).map((s) => typeof s === "string" ? { name: s } : { ...s });
}

/**
 * The scope names of the option.
 *
 * @param scopes The `scopes` option.
 * @returns The names, in the order given.
 *
 * @example Names of a mixed list
 * ```ts
 * import { scopeNames } from "./scope_list.ts";
 * scopeNames(["notes:read", { name: "notes:write", description: "Create notes" }]); // ["notes:read", "notes:write"]
 * ```
 */
export function scopeNames(scopes: ScopeList): string[] {
  return scopeDefinitions(scopes).map((s) => s.name);
}
