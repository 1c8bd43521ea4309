// The activity log's id factory makes the ids `ulid`'s monotonicFactory makes, from the same randomness: new
// milliseconds, repeated ones (past 32 in one, where the increment carries), and a clock that goes back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { monotonicFactory } from "ulid";
import { monotonicUlids } from "../../../core/activity/monotonic_ids.ts";

/** A repeatable randomness (a linear congruential sequence), one per factory. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
}

const T0 = Date.parse("2026-03-01T12:00:00.000Z");

test("monotonicUlids makes the ids monotonicFactory makes from the same randomness, carries and a clock going back included", () => {
  const times: number[] = [];
  for (let ms = 0; ms < 5; ms++) for (let i = 0; i < 70 * ms + 1; i++) times.push(T0 + ms);
  times.push(T0 + 2, T0 + 1, T0 + 4, T0 + 9, T0 + 9);
  for (const seed of [1, 7, 99, 12_345]) {
    const library = monotonicFactory(seeded(seed));
    const ours = monotonicUlids(seeded(seed));
    const expected = times.map((at) => library(at));
    assert.deepEqual(times.map((at) => ours(at)), expected);
    assert.deepEqual([...expected].sort(), expected, "in the order they were made");
  }
});

test("monotonicUlids carries through the whole random part, as the library does", () => {
  // The random part drawn as "YZZZZZZZZZZZZZZZ" (its last character first): the second id carries through 15 of them.
  const highest = () => {
    let calls = 0;
    return () => (calls++ % 16 === 15 ? 30.5 : 31.5) / 32;
  };
  const library = monotonicFactory(highest());
  const ours = monotonicUlids(highest());
  const times = Array.from({ length: 40 }, () => T0);
  const expected = times.map((at) => library(at));
  assert.equal(expected[1].slice(10), "Z000000000000000");
  assert.deepEqual(times.map((at) => ours(at)), expected);
});
