import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { sha256Hex } from "../../../core/contract/mod.ts";

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

describe("sha256", () => {
  test("sha256Hex() matches crypto.subtle at every padding boundary and for random bytes", async () => {
    const lengths = [0, 1, 3, 49, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000];
    for (const length of lengths) {
      const bytes = crypto.getRandomValues(new Uint8Array(length));
      const expected = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
      assert.equal(sha256Hex(bytes), expected, `length ${length}`);
    }
  });

  test("sha256Hex() gives the published FIPS 180-2 digests of 'abc', '' and the 448-bit message", () => {
    assert.equal(
      sha256Hex(new Uint8Array(0)),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    );
    assert.equal(
      sha256Hex(new TextEncoder().encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    );
    assert.equal(
      sha256Hex(new TextEncoder().encode("abc")),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });

  test("sha256Hex() hashes a string's UTF-8 as crypto.subtle does, and its bytes the same", async () => {
    for (const text of ["", "svc_live_0123456789abcdefghij", "clé ✓ 鍵 🔑"]) {
      const expected = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
      assert.equal(sha256Hex(text), expected, text);
      assert.equal(sha256Hex(new TextEncoder().encode(text)), expected, text);
    }
  });
});
