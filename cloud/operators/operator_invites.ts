/**
 * Operators managed by an admin: inviting one (a one-time link, shown once, its token stored only hashed), joining
 * through that link, changing a role and removing an operator, never leaving the cloud without an admin nor an admin
 * removing themselves. Each change is audited in its own transaction.
 *
 * @module
 */
import { hashSecret, mintSecret } from "../../core/contract/mod.ts";
import { type AuditActor, auditRecord } from "../audit/mod.ts";
import type { OperatorRepository } from "./operator_repository.ts";
import type { OperatorRecord, OperatorRole } from "./operator_storage.ts";
import { INVITE_LINK_TTL_MS, type InviteRecord, type OperatorChangeOutcome } from "./operator_administration.ts";
import { newOperator } from "./operators.ts";

/** Where an invite link leads, below the cloud's origin. */
export const INVITE_PATH = "/dashboard/invite";

/** The outcome of an invite: its link (path and query, shown once), or `taken` when an operator has the email. */
export type InviteOutcome = { link: string; expiresAt: string } | "taken";

/**
 * Invites an operator: a one-time link, valid {@linkcode INVITE_LINK_TTL_MS}, that lets its holder choose a password
 * and join with `role`. Audited as `operator.invite` (the email and role; never the link).
 *
 * @param storage The operators' repository.
 * @param email The invitee's email (checked already).
 * @param role The role they join with.
 * @param by The admin inviting.
 * @param now The time, in milliseconds.
 * @returns The link (path and query), or `taken`.
 */
export async function inviteOperator(
  storage: { operators: OperatorRepository },
  email: string,
  role: OperatorRole,
  by: AuditActor,
  now: number,
): Promise<InviteOutcome> {
  const token = mintSecret("svci_");
  const invite: InviteRecord = {
    tokenHash: await hashSecret(token),
    email: email.toLowerCase(),
    role,
    invitedBy: by.actor,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + INVITE_LINK_TTL_MS).toISOString(),
  };
  const audit = auditRecord(by, { action: "operator.invite", target: invite.email, detail: { role }, at: now });
  if (!await storage.operators.createInvite(invite, audit)) return "taken";
  return { link: `${INVITE_PATH}?token=${token}`, expiresAt: invite.expiresAt };
}

/**
 * The invite of a link while it can be used (unused, unexpired, its email free), or `null`.
 *
 * @param storage The operators' repository.
 * @param token The link's token.
 * @param now The time, in milliseconds.
 * @returns The invite, or `null`.
 */
export async function findInvite(
  storage: { operators: OperatorRepository },
  token: string,
  now: number,
): Promise<InviteRecord | null> {
  if (!/^svci_[A-Za-z0-9]{40}$/.test(token)) return null;
  return await storage.operators.findInvite(await hashSecret(token), new Date(now).toISOString());
}

/**
 * Spends an invite link and creates its operator with the invite's email and role (audited as `operator.join`).
 *
 * @param storage The operators' repository.
 * @param invite The invite, as {@linkcode findInvite} found it.
 * @param password The password chosen (checked already).
 * @param address Where from, or `null`.
 * @param now The time, in milliseconds.
 * @returns The new operator, or `null` when the link was spent or expired meanwhile.
 */
export async function joinByInvite(
  storage: { operators: OperatorRepository },
  invite: InviteRecord,
  password: string,
  address: string | null,
  now: number,
): Promise<OperatorRecord | null> {
  const operator = await newOperator(invite.email, invite.role, password, now);
  const by = { actor: operator.email, sourceAddress: address };
  const audit = auditRecord(by, {
    action: "operator.join",
    target: operator.email,
    detail: { role: invite.role, invitedBy: invite.invitedBy },
    at: now,
  });
  const at = new Date(now).toISOString();
  return await storage.operators.acceptInvite(invite.tokenHash, operator, at, audit) ? operator : null;
}

/** What a change by an admin did; `self` when an admin tried to remove themselves (refused). */
export type AdminChangeOutcome = OperatorChangeOutcome | "self";

/**
 * Changes an operator's role (audited as `operator.role`), ending their sessions; refused when it would leave no admin.
 *
 * @param storage The operators' repository.
 * @param operator The operator changed.
 * @param role The new role.
 * @param by The admin changing it.
 * @param now The time, in milliseconds.
 * @returns What happened.
 */
export function changeOperatorRole(
  storage: { operators: OperatorRepository },
  operator: OperatorRecord,
  role: OperatorRole,
  by: AuditActor,
  now: number,
): Promise<OperatorChangeOutcome> {
  const audit = auditRecord(by, {
    action: "operator.role",
    target: operator.email,
    detail: { from: operator.role, to: role },
    at: now,
  });
  return storage.operators.changeRole(operator.id, role, new Date(now).toISOString(), audit);
}

/**
 * Removes an operator and ends their sessions (audited as `operator.remove`); refused for the admin themselves and
 * for the last admin.
 *
 * @param storage The operators' repository.
 * @param operator The operator removed.
 * @param by The admin removing them, by email.
 * @param now The time, in milliseconds.
 * @returns What happened.
 */
export async function removeOperatorByAdmin(
  storage: { operators: OperatorRepository },
  operator: OperatorRecord,
  by: AuditActor,
  now: number,
): Promise<AdminChangeOutcome> {
  if (operator.email === by.actor.toLowerCase()) return "self";
  const audit = auditRecord(by, { action: "operator.remove", target: operator.email, at: now });
  return await storage.operators.removeUnlessLastAdmin(operator.id, audit);
}
