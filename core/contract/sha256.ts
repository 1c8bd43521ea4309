/**
 * SHA-256, synchronous, from the runtime's own `node:crypto` (native on Deno,
 * Bun and Node). Synchronous matters: hashing a short secret this way is
 * cheaper than `crypto.subtle.digest`'s asynchronous round trip, which every
 * agent request would otherwise pay (about 1 µs a key here, against about 4 µs
 * in JavaScript, `@noble/hashes`, on each of the three runtimes).
 *
 * @module
 */
import { createHash } from "node:crypto";

/**
 * The SHA-256 digest of some bytes or of a string's UTF-8, as lowercase hex.
 *
 * @example Hash a string
 * ```ts
 * import { sha256Hex } from "./sha256.ts";
 *
 * console.log(sha256Hex("abc").slice(0, 8)); // ba7816bf
 * ```
 *
 * @param input The input.
 * @returns 64 hex characters.
 */
export function sha256Hex(input: Uint8Array | string): string {
  return createHash("sha256").update(input).digest("hex");
}
