/**
 * The operators' service: what the dashboard's signed-out and account pages and the CLI's `admin` commands do
 * with operators, each change with its audit entry in the change's own transaction.
 *
 * @module
 */
import { hashSecret } from "../../core/contract/mod.ts";
import type { OperatorRepository } from "./operator_repository.ts";
import type { OperatorRecord, OperatorRole } from "./operator_storage.ts";
import { newOperator } from "./operators.ts";
import { createSetupLink } from "./setup_link.ts";
import { decoyHash, hashPassword, PASSWORD_COST, verifyPassword } from "./passwords.ts";
import { currentSession, openSession, type Session, type SessionLimits } from "./sessions.ts";
import { acceptTotp, secondFactorOk } from "./second_factor.ts";
import type { InviteRecord, OperatorChangeOutcome } from "./operator_administration.ts";
import {
  type AdminChangeOutcome,
  changeOperatorRole,
  findInvite,
  inviteOperator,
  type InviteOutcome,
  joinByInvite,
  removeOperatorByAdmin,
} from "./operator_invites.ts";
import { type AuditActor, auditRecord, type AuditRepository, recordAudit } from "../audit/mod.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** What the service does with operators. */
export interface OperatorService {
  /** Every operator, oldest first. */
  list(): Promise<OperatorRecord[]>;
  /** The operator with this email (any case), or `null`. */
  findByEmail(email: string): Promise<OperatorRecord | null>;
  /** Creates an operator (input already checked); `null` when the email is taken. */
  create(email: string, role: OperatorRole, password: string, by: AuditActor): Promise<OperatorRecord | null>;
  /** The operator with this id, or `null`. */
  find(id: string): Promise<OperatorRecord | null>;
  /** Invites an operator: a one-time link (shown once) to join with `role`, or `taken` when the email is an operator's. */
  invite(email: string, role: OperatorRole, by: AuditActor, now: number): Promise<InviteOutcome>;
  /** The invite of a link while it can be used, or `null`. */
  invitation(token: string, now: number): Promise<InviteRecord | null>;
  /** Joins through an invite with a password (checked already); the new operator, or `null` when the link is spent. */
  join(invite: InviteRecord, password: string, address: string | null, now: number): Promise<OperatorRecord | null>;
  /** Changes an operator's role, ending their sessions; refused when it would leave no admin. */
  changeRole(operator: OperatorRecord, role: OperatorRole, by: AuditActor, now: number): Promise<OperatorChangeOutcome>;
  /** Removes another operator and their sessions; refused for oneself and for the last admin. */
  removeByAdmin(operator: OperatorRecord, by: AuditActor, now: number): Promise<AdminChangeOutcome>;
  /** Removes an operator and their sessions; `false` when unknown. */
  remove(operator: OperatorRecord, by: AuditActor): Promise<boolean>;
  /**
   * Whether a password is the operator's; for an unknown operator (`null`) a decoy hash is checked, so both take the
   * same time, and the answer is `false`.
   */
  checkPassword(operator: OperatorRecord | null, password: string): Promise<boolean>;
  /** Sets an operator's password (checked already), ending their sessions; `false` when unknown. */
  setPassword(operator: OperatorRecord, password: string, by: AuditActor): Promise<boolean>;
  /** Whether a code is the operator's current TOTP code (spent once) or one of their recovery codes (spent). */
  secondFactorOk(operator: OperatorRecord, code: string, now: number): Promise<boolean>;
  /** Whether a code is valid now for a secret being set up, its step spent for the operator. */
  acceptTotp(operator: OperatorRecord, secret: string, code: string, now: number): Promise<boolean>;
  /** Turns two-factor sign-in on with this secret and these recovery code hashes. */
  enableTwoFactor(
    operator: OperatorRecord,
    secret: string,
    hashes: string[],
    by: AuditActor,
    now: number,
  ): Promise<boolean>;
  /** Turns two-factor sign-in off. */
  disableTwoFactor(operator: OperatorRecord, by: AuditActor, now: number): Promise<boolean>;
  /** Opens a session after a sign-in (audited as `operator.sign_in` with it); the token for the cookie. */
  signIn(operator: OperatorRecord, by: AuditActor, now: number, limits: SessionLimits): Promise<string>;
  /** Records a failed sign-in: no change, so its audit entry alone. */
  signInFailed(operatorId: string | null, by: AuditActor, now: number): Promise<void>;
  /** Ends a session (audited as `operator.sign_out` with it). */
  signOut(token: string, by: AuditActor, now: number): Promise<void>;
  /** The request's live session, or `null` (an expired or idle one is deleted). */
  session(req: Request, now: number, limits: SessionLimits, secure: boolean): Promise<Session | null>;
  /** Mints the one-time setup link while no operator exists: its path and query, or `null` when one exists. */
  createSetupLink(now?: number): Promise<string | null>;
  /** `true` while the setup link's token is unused, unexpired and no operator exists. */
  setupLinkValid(token: string, now: number): Promise<boolean>;
  /**
   * Spends the setup link and creates the first admin (audited as `operator.setup` in that transaction), then
   * opens their session: the token for the cookie, or `null` when the link is used or expired.
   */
  setUp(
    token: string,
    email: string,
    password: string,
    address: string | null,
    now: number,
    limits: SessionLimits,
  ): Promise<string | null>;
}

/** What only the toolkit's own tests give {@linkcode createOperatorService}: not reachable from `createCloud`. */
export interface OperatorServiceSeams {
  /**
   * scrypt's log2 N for new password hashes and the decoy (default {@linkcode PASSWORD_COST}): the tests lower it so
   * a sign-in does not spend a second on a pure-JS hash. Hashes keep their cost, so any stored hash verifies.
   */
  passwordCost?: number;
  /** The clock of an operator's creation and a password change, in milliseconds (default the platform's). */
  now?: () => number;
}

/**
 * Builds the operators' service.
 *
 * @param storage The operators' repository.
 * @param seams The password cost of the toolkit's own tests.
 * @returns The service.
 * @example Creating an operator from the command line
 * ```ts ignore
 * const operators = createOperatorService(storage);
 * await operators.create("ops@example.com", "admin", password, CLI_ACTOR);
 * ```
 */
export function createOperatorService(
  storage: { operators: OperatorRepository; audit: Pick<AuditRepository, "appendAudit"> },
  seams: OperatorServiceSeams = {},
): OperatorService {
  const repo = storage.operators;
  const cost = seams.passwordCost ?? PASSWORD_COST;
  const now = seams.now ?? PLATFORM.now;
  // This service's decoy, hashed now so the first unknown email waits no longer than a known one; refused (a flood
  // of hashes), it is hashed again on the next use.
  let decoy: Promise<string> | undefined;
  const theDecoy = (): Promise<string> => {
    if (decoy === undefined) {
      const made = decoyHash(cost);
      decoy = made;
      made.catch(() => decoy === made && (decoy = undefined));
    }
    return decoy;
  };
  theDecoy().catch(() => {});
  const iso = (now: number): string => new Date(now).toISOString();
  return {
    list: () => repo.listOperators(),
    findByEmail: (email) => repo.findOperatorByEmail(email),
    async create(email, role, password, by) {
      const operator = await newOperator(email, role, password, now(), cost);
      const audit = auditRecord(by, { action: "operator.create", target: operator.email, detail: { role } });
      return await repo.createOperator(operator, audit) ? operator : null;
    },
    find: (id) => repo.findOperator(id),
    invite: (email, role, by, now) => inviteOperator(storage, email, role, by, now),
    invitation: (token, now) => findInvite(storage, token, now),
    join: (invite, password, address, now) => joinByInvite(storage, invite, password, address, now),
    changeRole: (operator, role, by, now) => changeOperatorRole(storage, operator, role, by, now),
    removeByAdmin: (operator, by, now) => removeOperatorByAdmin(storage, operator, by, now),
    remove: (operator, by) =>
      repo.removeOperator(operator.id, auditRecord(by, { action: "operator.remove", target: operator.email })),
    async checkPassword(operator, password) {
      const ok = await verifyPassword(password, operator?.passwordHash ?? await theDecoy());
      return operator !== null && ok;
    },
    async setPassword(operator, password, by) {
      const passwordHash = await hashPassword(password, cost);
      const audit = auditRecord(by, { action: "operator.password", target: operator.email });
      return repo.updateOperator(operator.id, { passwordHash }, new Date(now()).toISOString(), audit);
    },
    secondFactorOk: (operator, code, now) => secondFactorOk(repo, operator, code, now),
    acceptTotp: (operator, secret, code, now) => acceptTotp(repo, operator.id, secret, code, now),
    enableTwoFactor(operator, secret, hashes, by, now) {
      const audit = auditRecord(by, { action: "operator.totp_on", target: operator.email, at: now });
      return repo.updateOperator(operator.id, { totpSecret: secret, recoveryCodeHashes: hashes }, iso(now), audit);
    },
    disableTwoFactor(operator, by, now) {
      const audit = auditRecord(by, { action: "operator.totp_off", target: operator.email, at: now });
      return repo.updateOperator(operator.id, { totpSecret: null, recoveryCodeHashes: [] }, iso(now), audit);
    },
    signIn(operator, by, now, limits) {
      const audit = auditRecord(by, { action: "operator.sign_in", target: operator.id, at: now });
      return openSession(storage, operator, by.sourceAddress, now, limits, audit);
    },
    signInFailed: (operatorId, by, now) =>
      recordAudit(storage, by, { action: "operator.sign_in_failed", target: operatorId, at: now }),
    async signOut(token, by, now) {
      await repo.deleteSession(await hashSecret(token), auditRecord(by, { action: "operator.sign_out", at: now }));
    },
    session: (req, now, limits, secure) => currentSession(storage, req, now, limits, secure),
    createSetupLink: (now) => createSetupLink(storage, now),
    async setupLinkValid(token, now) {
      return repo.setupTokenValid(await hashSecret(token), iso(now));
    },
    async setUp(token, email, password, address, now, limits) {
      const operator = await newOperator(email, "admin", password, now, cost);
      const by = { actor: operator.email, sourceAddress: address };
      const audit = auditRecord(by, { action: "operator.setup", target: operator.id, at: now });
      if (!await repo.setupFirstOperator(await hashSecret(token), operator, iso(now), audit)) return null;
      return openSession(storage, operator, address, now, limits);
    },
  };
}
