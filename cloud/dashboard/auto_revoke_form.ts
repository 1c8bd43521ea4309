/**
 * The auto-revoke policy on a project's settings page: what it is now, the
 * form that sets it (the same policy as `PUT /v1/sdk/policy`), and reading
 * that form back into a policy or the reasons it is refused.
 *
 * @module
 */
import { html } from "hono/html";
import { type AutoRevokePolicy, autoRevokePolicySchema, countedBy } from "../../core/contract/mod.ts";
import { SEVERITIES } from "../../core/contract/mod.ts";
import type { Html } from "./responses.ts";

/**
 * The form's fields, filled with the policy in force (or sensible starting values when off).
 *
 * @param policy The policy, or `null`.
 * @returns The fields.
 */
export function policyFields(policy: AutoRevokePolicy | null): Html {
  const counted = policy === null ? null : countedBy(policy);
  const severities = counted?.severities ?? ["severe"];
  return html`<div class="field"><label for="threshold">Violations that revoke a key</label>
  <input id="threshold" name="threshold" type="number" min="1" max="1000000" required
    value="${String(policy?.threshold ?? 5)}"></div>
<div class="field"><label for="window">Within minutes</label>
  <input id="window" name="windowMinutes" type="number" min="1" required value="${String(policy?.windowMinutes ?? 60)}">
</div>
<div class="field"><label for="kinds">Kinds that count (comma-separated)</label>
  <input id="kinds" name="kinds" value="${(counted?.kinds ?? ["FORBIDDEN_SCOPE"]).join(", ")}"></div>
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
 * @param form The form (`threshold`, `windowMinutes`, `kinds`, `severities`).
 * @returns The policy, or the reasons it is refused.
 */
export function readPolicyForm(form: URLSearchParams): { policy: AutoRevokePolicy } | { problem: string } {
  const kinds = (form.get("kinds") ?? "").split(",").map((k) => k.trim()).filter((k) => k.length > 0);
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
