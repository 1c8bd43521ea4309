/**
 * The actions the audit log records, for the dashboard's Action filter: a list to choose from, not free text.
 *
 * @module
 */
import { APPROVAL_AUDIT_ACTIONS } from "../../core/contract/mod.ts";

/** Every action the cloud appends to the audit log, grouped by what it concerns. */
export const AUDIT_ACTIONS: readonly string[] = [
  "key.create",
  "key.revoke",
  "key.revoke_all",
  "key.reroll",
  "project.create",
  "project.rename",
  "project.rotate_secret",
  "project.delete",
  "policy.auto_revoke",
  "policy.retention",
  "policy.key_lifetime",
  "policy.inbox",
  "inbox.discard",
  ...Object.values(APPROVAL_AUDIT_ACTIONS),
  "inbox.redrive",
  "inbox.replay",
  "operator.setup",
  "operator.create",
  "operator.invite",
  "operator.join",
  "operator.role",
  "operator.remove",
  "operator.password",
  "operator.totp_on",
  "operator.totp_off",
  "operator.sign_in",
  "operator.sign_in_failed",
  "operator.sign_out",
];

/**
 * Whether an action's target is a key's id (so a page can name the key).
 *
 * @param action The action.
 * @returns `true` for the `key.` actions.
 * @example
 * ```ts
 * targetsKey("key.revoke"); // true
 * ```
 */
export function targetsKey(action: string): boolean {
  return action.startsWith("key.");
}
