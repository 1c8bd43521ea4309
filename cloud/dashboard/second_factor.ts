/**
 * The optional second factor: TOTP (RFC 6238) from `otpauth`, and one-time
 * recovery codes stored as hashes.
 *
 * @module
 */
import { Secret, TOTP } from "otpauth";
import { hashSecret, mintSecret } from "../../core/contract/secrets.ts";

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
 * Whether a code is valid now (one 30-second step of clock drift either way).
 *
 * @param secret The base32 secret.
 * @param code The six digits given.
 * @param now The time, in milliseconds.
 * @returns `true` when valid.
 */
export function verifyTotp(secret: string, code: string, now: number): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  return totp(secret, "").validate({ token: code, timestamp: now, window: 1 }) !== null;
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
