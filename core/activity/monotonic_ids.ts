/**
 * The ids of activity records: monotonic ULIDs exactly as `ulid`'s `monotonicFactory` makes them, at a fraction of
 * the cost when many share a millisecond (a busy server's runs do, a dozen or more each).
 *
 * @module
 */
import { incrementBase32, monotonicFactory } from "ulid";

/** Crockford's Base32, the alphabet of a ULID. */
const ENCODING = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * A monotonic ULID factory: the same ids, from the same randomness, as `monotonicFactory(random)`. A new millisecond
 * is the library's (its time and 16 random characters); an id of a millisecond already used is the last one plus one,
 * where the library re-encodes the time and rebuilds the random part character by character (`incrementBase32`):
 * here only the last character changes, except once in 32, when the library's increment carries.
 *
 * @param random The randomness, numbers in [0, 1).
 * @returns Makes the next id for a time in milliseconds (never smaller than the last id, whatever the time).
 *
 * @example Two ids of one millisecond
 * ```ts
 * import { monotonicUlids } from "./monotonic_ids.ts";
 * const mint = monotonicUlids(Math.random);
 * const a = mint(1_790_000_000_000);
 * const b = mint(1_790_000_000_000);
 * console.log(a < b); // true
 * ```
 */
export function monotonicUlids(random: () => number): (at: number) => string {
  const library = monotonicFactory(random);
  let lastTime = -1;
  /** The last id but its last character, and the index of that character in the alphabet. */
  let head = "";
  let last = 0;
  return (at) => {
    if (at > lastTime) {
      const id = library(at);
      lastTime = at;
      head = id.slice(0, 25);
      last = ENCODING.indexOf(id[25]);
      return id;
    }
    if (last < 31) return head + ENCODING[++last];
    const random = incrementBase32(head.slice(10) + ENCODING[last]); // throws past the largest, as the library does
    head = head.slice(0, 10) + random.slice(0, 15);
    last = ENCODING.indexOf(random[15]);
    return head + random[15];
  };
}
