/**
 * The key lifetime policy on a project's settings page: the form that sets it (the same policy as `keyLifetime` of
 * `PUT /v1/sdk/policy` and `project policy --key-lifetime-default/--key-lifetime-max`), and reading that form back
 * into a policy or the reason it is refused.
 *
 * @module
 */
import { html } from "hono/html";
import { type KeyLifetimePolicy, keyLifetimePolicySchema, MAX_KEY_LIFETIME_DAYS } from "../../core/contract/mod.ts";
import type { Html } from "./responses.ts";

/**
 * The form's fields, filled with the policy in force (empty where it sets nothing).
 *
 * @param life The policy, or `null`.
 * @returns The fields.
 */
export function keyLifetimeFields(life: KeyLifetimePolicy | null): Html {
  const days = (n: number | null | undefined) => n == null ? "" : String(n);
  return html`<div class="field"><label for="lifetime-default">Default lifetime in days</label>
  <input id="lifetime-default" name="defaultDays" type="number" min="1" max="${MAX_KEY_LIFETIME_DAYS}"
    value="${days(life?.defaultDays)}"></div>
<div class="field"><label for="lifetime-max">Longest lifetime in days</label>
  <input id="lifetime-max" name="maxDays" type="number" min="1" max="${MAX_KEY_LIFETIME_DAYS}"
    value="${days(life?.maxDays)}"></div>`;
}

/**
 * Reads the posted form into a policy: both fields empty is no policy (`null`).
 *
 * @param form The form (`defaultDays`, `maxDays`, each empty for none).
 * @returns The policy, or the reason it is refused.
 */
export function readKeyLifetimeForm(
  form: URLSearchParams,
): { keyLifetime: KeyLifetimePolicy | null } | { problem: string } {
  const read = (name: string): number | null | undefined => {
    const value = (form.get(name) ?? "").trim();
    return value === "" ? null : /^\d{1,9}$/.test(value) ? Number(value) : undefined;
  };
  const defaultDays = read("defaultDays");
  const maxDays = read("maxDays");
  const parsed = keyLifetimePolicySchema.safeParse({ defaultDays, maxDays });
  if (defaultDays === undefined || maxDays === undefined || !parsed.success) {
    return {
      problem: `Each lifetime must be a whole number of days from 1 to ${MAX_KEY_LIFETIME_DAYS}, or empty, ` +
        "the default no longer than the longest.",
    };
  }
  return { keyLifetime: defaultDays === null && maxDays === null ? null : { defaultDays, maxDays } };
}
