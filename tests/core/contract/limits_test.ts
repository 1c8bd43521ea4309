// The bounds of stored values: a JSON object's size is counted in UTF-8 bytes (text short enough that it cannot pass
// the bound is not encoded to count them), and stored text is well-formed Unicode without NUL.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { boundedJsonObject, storedText } from "../../../core/contract/limits.ts";

/** `{"s":"…"}`: 8 bytes of JSON around `text`. */
const payload = (text: string) => ({ s: text });

describe("boundedJsonObject", () => {
  const schema = boundedJsonObject({ maxBytes: 64 * 1024, maxDepth: 32 });

  test("counts UTF-8 bytes, not characters: two-byte and three-byte text up to the bound passes, one byte over does not", () => {
    // "é" is 2 bytes and "€" 3: far fewer characters than bytes, so the bound is decided by encoding.
    assert.equal(schema.safeParse(payload("é".repeat((64 * 1024 - 8) / 2))).success, true);
    assert.equal(schema.safeParse(payload("é".repeat((64 * 1024 - 8) / 2) + "x")).success, false);
    assert.equal(schema.safeParse(payload("€".repeat(21_842) + "xx")).success, true); // 8 + 65,526 + 2 bytes
    assert.equal(schema.safeParse(payload("€".repeat(21_843))).success, false); // 8 + 65,529 bytes
    // A surrogate pair is 2 UTF-16 units and 4 bytes.
    assert.equal(schema.safeParse(payload("\u{1F600}".repeat((64 * 1024 - 8) / 4))).success, true);
    assert.equal(schema.safeParse(payload("\u{1F600}".repeat((64 * 1024 - 8) / 4) + "x")).success, false);
  });

  test("ASCII text passes up to the bound and is refused one byte over it", () => {
    assert.equal(schema.safeParse(payload("x".repeat(64 * 1024 - 8))).success, true);
    assert.equal(schema.safeParse(payload("x".repeat(64 * 1024 - 7))).success, false);
    assert.equal(schema.safeParse(payload("x".repeat(21_000))).success, true); // short: never encoded
  });
});

describe("storedText", () => {
  const schema = storedText(1, 200);

  test("refuses a lone surrogate (high or low, anywhere) and NUL, and accepts a surrogate pair", () => {
    for (const text of ["\ud800", "a\udc00", "\udc00\ud800", "x\ud83d", "a\u0000b"]) {
      assert.equal(schema.safeParse(text).success, false, JSON.stringify(text));
    }
    for (const text of ["\ud83d\ude00", "plain", "é€\u{1F600}"]) {
      assert.equal(schema.safeParse(text).success, true, JSON.stringify(text));
    }
  });
});
