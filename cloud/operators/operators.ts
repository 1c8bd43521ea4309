/**
 * Creating operators and changing their password: the checks and hashing
 * shared by the setup page and the command line.
 *
 * @module
 */
import { ulid } from "ulid";
import type { OperatorRecord, OperatorRole } from "./operator_storage.ts";
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PASSWORD_COST } from "./passwords.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/**
 * Why a new operator or password is refused, in words for the operator; `null` when acceptable.
 *
 * @param email The email, or `null` when only the password changes.
 * @param password The password.
 * @returns The reason, or `null`.
 */
export function operatorInputProblem(email: string | null, password: string): string | null {
  if (email !== null && !isEmail(email)) return "Enter a valid email address.";
  if (password.length < MIN_PASSWORD_LENGTH) {
    return `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  }
  if (password.length > MAX_PASSWORD_LENGTH) return `The password must have at most ${MAX_PASSWORD_LENGTH} characters.`;
  return null;
}

/**
 * A new operator record with the password hashed. Check the input first with {@linkcode operatorInputProblem}.
 *
 * @param email The email (stored lower-cased).
 * @param role What the operator may do.
 * @param password The plaintext, hashed here and never kept.
 * @param now The time, in milliseconds.
 * @param cost scrypt's log2 N (default {@linkcode PASSWORD_COST}; lower only through the cloud's test seam).
 * @returns The record to store.
 */
export async function newOperator(
  email: string,
  role: OperatorRole,
  password: string,
  now: number = PLATFORM.now(),
  cost: number = PASSWORD_COST,
): Promise<OperatorRecord> {
  const at = new Date(now).toISOString();
  return {
    id: `op_${ulid(now)}`,
    email: email.toLowerCase(),
    role,
    passwordHash: await hashPassword(password, cost),
    totpSecret: null,
    recoveryCodeHashes: [],
    createdAt: at,
    updatedAt: at,
  };
}

/** A plausible email: something, `@`, something with a dot; no spaces or control characters; at most 254 characters. */
export const EMAIL = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]+\.[^\s@\p{Cc}]+$/u;

/**
 * Whether a string is a plausible email address.
 *
 * @param email The address.
 * @returns `true` when it looks like one.
 */
export function isEmail(email: string): boolean {
  return email.length <= 254 && EMAIL.test(email);
}
