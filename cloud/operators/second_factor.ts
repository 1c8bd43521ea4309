/**
 * The optional second factor: TOTP (RFC 6238) from `otpauth`, each code
 * accepted once, and one-time recovery codes stored as hashes.
 *
 * @module
 */
import { Secret, TOTP } from "otpauth";
import { hashSecret, mintSecret } from "../../core/contract/mod.ts";
import type { OperatorRecord, OperatorStorage } from "./operator_storage.ts";

/** How many recovery codes an operator gets. */
export const RECOVERY_CODE_COUNT = 10;

/**
 * A fresh TOTP secret.
 *
 * @returns 160 random bits in base32.
 */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, email: string): TOTP {
  return new TOTP({ issuer: "svc cloud", label: email, secret: Secret.fromBase32(secret) });
}

/**
 * The `otpauth://` URI an authenticator app takes.
 *
 * @param secret The base32 secret.
 * @param email The operator.
 * @returns The URI.
 */
export function totpUri(secret: string, email: string): string {
  return totp(secret, email).toString();
}

/**
 * The time step a code is valid for now (one 30-second step of clock drift either way), or `null`.
 *
 * @param secret The base32 secret.
 * @param code The six digits given.
 * @param now The time, in milliseconds.
 * @returns The step (30-second periods since 1970) whose code this is, or `null` when not valid now.
 */
export function totpStep(secret: string, code: string, now: number): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const t = totp(secret, "");
  const delta = t.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? null : t.counter({ timestamp: now }) + delta;
}

/**
 * Checks a code and spends its time step, atomically: a code is accepted only for a step later than the
 * last one accepted for the operator, so a code (seen over a shoulder, or sent twice at once) works once.
 *
 * @param storage Where the operator's last accepted step is kept.
 * @param operatorId The operator.
 * @param secret The base32 secret the code must come from.
 * @param code The six digits given.
 * @param now The time, in milliseconds.
 * @returns `true` when the code is valid now and its step was not used before.
 */
export async function acceptTotp(
  storage: Pick<OperatorStorage, "spendTotpStep">,
  operatorId: string,
  secret: string,
  code: string,
  now: number,
): Promise<boolean> {
  const step = totpStep(secret, code, now);
  return step !== null && await storage.spendTotpStep(operatorId, step);
}

/**
 * The current code of a secret (for tests and the command line).
 *
 * @param secret The base32 secret.
 * @param now The time, in milliseconds.
 * @returns Six digits.
 */
export function totpCode(secret: string, now: number): string {
  return totp(secret, "").generate({ timestamp: now });
}

/**
 * Fresh recovery codes and their hashes.
 *
 * @returns The codes, shown once, and the hashes to store.
 */
export async function newRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const body = mintSecret("").slice(0, 16).toLowerCase();
    return `${body.slice(0, 4)}-${body.slice(4, 8)}-${body.slice(8, 12)}-${body.slice(12)}`;
  });
  return { codes, hashes: await Promise.all(codes.map(recoveryCodeHash)) };
}

/**
 * The stored hash of a recovery code, ignoring case, spaces and dashes.
 *
 * @param code The code as typed.
 * @returns Its hash.
 */
export function recoveryCodeHash(code: string): Promise<string> {
  return hashSecret(`recovery:${code.toLowerCase().replace(/[\s-]/g, "")}`);
}

/**
 * Whether a code is the operator's current TOTP code (spent once) or one of their recovery codes (spent).
 *
 * @param storage Where spent steps and recovery codes are kept.
 * @param op The operator (with two-factor sign-in on; `true` when off).
 * @param code The code typed.
 * @param now The time, in milliseconds.
 * @returns Whether it is valid.
 */
export async function secondFactorOk(
  storage: Pick<OperatorStorage, "spendTotpStep" | "spendRecoveryCode">,
  op: OperatorRecord,
  code: string,
  now: number,
): Promise<boolean> {
  if (op.totpSecret === null) return true;
  if (await acceptTotp(storage, op.id, op.totpSecret, code, now)) return true;
  const at = new Date(now).toISOString();
  return code.length >= 16 && await storage.spendRecoveryCode(op.id, await recoveryCodeHash(code), at);
}
