/**
 * Operator passwords, hashed with scrypt from `@noble/hashes` (memory-hard,
 * never hand-written). The stored form names its parameters, so they can be
 * raised later without breaking old hashes.
 *
 * @module
 */
import { scryptAsync } from "@noble/hashes/scrypt.js";
import { timingSafeEqual } from "../../core/contract/mod.ts";
import { PASSWORD_HASHES } from "./hash_gate.ts";
import { PLATFORM } from "../../core/platform/mod.ts";

/** scrypt's cost of every new hash: N = 2^15, r = 8, p = 1 (32 MiB), 32-byte output. */
export const PASSWORD_COST = 15;
const R = 8;
const P = 1;
const encoder = new TextEncoder();

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12;

/** The longest password accepted (scrypt takes any length; this bounds the work of a request). */
export const MAX_PASSWORD_LENGTH = 200;

/**
 * Hashes a password with a fresh random salt.
 *
 * @param password The plaintext.
 * @param cost scrypt's log2 N: {@linkcode PASSWORD_COST}, always, outside the toolkit's own tests (the cloud's test
 *   seam `passwordCost` is the only other caller's source; no public option reaches it).
 * @returns `scrypt$LOGN$R$P$salt$hash` with base64 salt and hash.
 */
export async function hashPassword(password: string, cost: number = PASSWORD_COST): Promise<string> {
  const salt = PLATFORM.randomBytes(16);
  const hash = await derive(password, salt, cost, R, P);
  return ["scrypt", cost, R, P, base64(salt), base64(hash)].join("$");
}

/**
 * Checks a password against a stored hash, in time independent of where they differ.
 *
 * @param password The plaintext given.
 * @param stored The stored `scrypt$…` string.
 * @returns Whether the password matches.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, logN, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || hash === undefined) return false;
  const derived = await derive(password, unbase64(salt), Number(logN), Number(r), Number(p));
  return timingSafeEqual(base64(derived), hash);
}

/**
 * A hash of a random password, checked when the email is unknown so both cases take the same time. The operators'
 * service hashes its own once, when it is built, so no sign-in waits for it.
 *
 * @param cost scrypt's log2 N, that of the real hashes.
 * @returns The decoy hash.
 */
export function decoyHash(cost: number = PASSWORD_COST): Promise<string> {
  return hashPassword(PLATFORM.randomUUID(), cost);
}

function derive(password: string, salt: Uint8Array, logN: number, r: number, p: number): Promise<Uint8Array> {
  // A few at a time process-wide: each holds 32 MiB while it runs.
  return PASSWORD_HASHES.run(() => scryptAsync(encoder.encode(password), salt, { N: 2 ** logN, r, p, dkLen: 32 }));
}

function base64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function unbase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}
