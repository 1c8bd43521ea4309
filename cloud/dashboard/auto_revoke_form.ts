/**
 * The auto-revoke policy on a project's settings page: what it is now, the
 * form that sets it (the same policy as `PUT /v1/sdk/policy`, the kinds chosen
 * from those the SDK records), and reading that form back into a policy or the
 * reasons it is refused.
 *
 * @module
 */
import { html } from "hono/html";
import { type AutoRevokePolicy, autoRevokePolicySchema, countedBy } from "../../core/contract/mod.ts";
import { SEVERITIES, VIOLATION_SEVERITY } from "../../core/contract/mod.ts";
import type { Html } from "./responses.ts";

/** The kinds the form offers: those the SDK records. */
const KNOWN_KINDS = Object.keys(VIOLATION_SEVERITY) as (keyof typeof VIOLATION_SEVERITY)[];

/**
 * The form's fields, filled with the policy in force (or sensible starting values when off).
 *
 * @param policy The policy, or `null`.
 * @returns The fields.
 */
export function policyFields(policy: AutoRevokePolicy | null): Html {
  const counted = policy === null ? null : countedBy(policy);
  const severities = counted?.severities ?? ["severe"];
  const kinds: readonly string[] = counted?.kinds ?? ["FORBIDDEN_SCOPE"];
  return html`<div class="field"><label for="threshold">Violations that revoke a key</label>
  <input id="threshold" name="threshold" type="number" min="1" max="1000000" required
    value="${String(policy?.threshold ?? 5)}"></div>
<div class="field"><label for="window">Within minutes</label>
  <input id="window" name="windowMinutes" type="number" min="1" required value="${String(policy?.windowMinutes ?? 60)}">
</div>
<fieldset class="field"><legend>Kinds that count</legend>${
    KNOWN_KINDS.map((k) =>
      html`
        <label
          class="choice"><input type="checkbox" name="kinds" value="${k}" ${kinds.includes(k)
            ? html`
              checked
            `
            : ""}> <code>${k}</code> <span class="muted">(${VIOLATION_SEVERITY[k]})</span></label>
      `
    )
  }</fieldset>
<fieldset class="field"><legend>Severities that count</legend>${
    SEVERITIES.map((s) =>
      html`
        <label class="choice"><input type="checkbox" name="severities" value="${s}" ${severities.includes(s)
          ? html`
            checked
          `
          : ""}> ${s}</label>
      `
    )
  }</fieldset>`;
}

/**
 * Reads the posted form into a policy.
 *
 * @param form The form (`threshold`, `windowMinutes`, `kinds` and `severities` once per box ticked).
 * @returns The policy, or the reasons it is refused.
 */
export function readPolicyForm(form: URLSearchParams): { policy: AutoRevokePolicy } | { problem: string } {
  const kinds = [...new Set(form.getAll("kinds"))];
  const unknown = kinds.filter((k) => !(KNOWN_KINDS as readonly string[]).includes(k));
  if (unknown.length > 0) return { problem: `Unknown kind: ${unknown.join(", ")}. Choose kinds from the list.` };
  const parsed = autoRevokePolicySchema.safeParse({
    threshold: wholeNumber(form.get("threshold")),
    windowMinutes: wholeNumber(form.get("windowMinutes")),
    kinds,
    severities: form.getAll("severities"),
  });
  if (!parsed.success) {
    const fields: Record<string, string> = {
      threshold: "violations that revoke a key",
      windowMinutes: "within minutes",
      kinds: "kinds",
      severities: "severities",
    };
    const names = [...new Set(parsed.error.issues.map((i) => fields[String(i.path[0])] ?? String(i.path[0])))];
    return { problem: `Check these fields: ${names.join(", ")}.` };
  }
  if (parsed.data.kinds!.length === 0 && parsed.data.severities!.length === 0) {
    return { problem: "Choose at least one kind or severity that counts." };
  }
  return { policy: parsed.data };
}

function wholeNumber(value: string | null): number | null {
  return value !== null && /^\d{1,9}$/.test(value.trim()) ? Number(value) : null;
}
