/**
 * A project's policy in words, for the command line and the dashboard alike: one sentence per part, with counts that
 * agree with their nouns ("1 violation", "2 violations").
 *
 * @module
 */
import { type AutoRevokePolicy, countedBy, type KeyLifetimePolicy } from "../../core/contract/mod.ts";

/**
 * A count and its noun, singular for one.
 *
 * @example Days
 * ```ts
 * import { quantity } from "./policy_in_words.ts";
 *
 * console.log(quantity(1, "day"), quantity(30, "day")); // "1 day" "30 days"
 * ```
 *
 * @param n The count.
 * @param noun The singular noun.
 * @param plural The plural, when it is not the noun with an `s`.
 * @returns `n noun` or `n nouns`.
 */
export function quantity(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/**
 * The auto-revoke policy in one sentence.
 *
 * @example A threshold of one
 * ```ts
 * import { autoRevokeInWords } from "./policy_in_words.ts";
 *
 * console.log(autoRevokeInWords({ threshold: 1, windowMinutes: 1 }));
 * // "On: 1 counted violation of one key within 1 minute revokes it. Counted: severity severe."
 * ```
 *
 * @param policy The policy, or `null` when off.
 * @returns One sentence.
 */
export function autoRevokeInWords(policy: AutoRevokePolicy | null): string {
  if (policy === null) return "Off: keys are revoked only by hand.";
  const { kinds, severities } = countedBy(policy);
  const counted = [...kinds.map((k) => `kind ${k}`), ...severities.map((s) => `severity ${s}`)].join(", ");
  const violations = quantity(policy.threshold, "counted violation");
  return `On: ${violations} of one key within ${quantity(policy.windowMinutes, "minute")} ` +
    `${policy.threshold === 1 ? "revokes" : "revoke"} it. Counted: ${counted || "nothing"}.`;
}

/**
 * The key lifetime policy in words.
 *
 * @example A maximum only
 * ```ts
 * import { keyLifetimeInWords } from "./policy_in_words.ts";
 *
 * console.log(keyLifetimeInWords({ maxDays: 30 })); // "no default, at most 30 days"
 * ```
 *
 * @param life The policy, or `null` when none.
 * @returns A phrase.
 */
export function keyLifetimeInWords(life: KeyLifetimePolicy | null): string {
  if (life === null || (life.defaultDays == null && life.maxDays == null)) return "keys never expire unless asked to";
  return [
    life.defaultDays == null ? "no default" : `default ${quantity(life.defaultDays, "day")}`,
    life.maxDays == null ? "no maximum" : `at most ${quantity(life.maxDays, "day")}`,
  ].join(", ");
}
