/**
 * SHA-256, synchronous, from `@noble/hashes` (audited, no dependencies).
 * Synchronous matters: hashing a short secret this way is cheaper than
 * `crypto.subtle.digest`'s asynchronous round trip, which every agent
 * request would otherwise pay.
 *
 * @module
 */
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";

/**
 * The SHA-256 digest of some bytes.
 *
 * @example Hash a string
 * ```ts
 * import { sha256 } from "./sha256.ts";
 *
 * const digest = sha256(new TextEncoder().encode("abc"));
 * console.log(digest.length); // 32
 * ```
 *
 * @param bytes The input.
 * @returns The 32-byte digest.
 */
export function sha256(bytes: Uint8Array): Uint8Array {
  return nobleSha256(bytes);
}
