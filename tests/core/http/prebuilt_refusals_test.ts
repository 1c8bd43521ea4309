// Prebuilt refusals: a reusable error's answer is built once and served again as a fresh Response with the same bytes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { SvcError } from "../../../core/errors/mod.ts";
import { errorResponse } from "../../../core/http/mod.ts";
import { prebuiltAnswer, reusableRefusal } from "../../../core/http/mod.ts";

describe("reusableRefusal", () => {
  test("a reusable refusal is answered from its first envelope, with a fresh Response each time", async () => {
    const error = reusableRefusal(
      new SvcError("UNAUTHORIZED", "Invalid agent key", { headers: { "www-authenticate": 'Bearer realm="svc"' } }),
    );
    assert.equal(prebuiltAnswer(error), undefined, "nothing before its first answer");
    const first = errorResponse(error);
    const again = errorResponse(error);
    assert.notEqual(first, again);
    assert.equal(again.status, 401);
    assert.equal(again.headers.get("www-authenticate"), 'Bearer realm="svc"');
    assert.equal(again.headers.get("content-type"), "application/json");
    assert.deepEqual(await again.json(), await first.json());
    assert.deepEqual(await errorResponse(error).json(), {
      ok: false,
      error: { code: "UNAUTHORIZED", message: "Invalid agent key" },
    });
  });

  test("an error not marked reusable is answered anew every time", () => {
    const error = new SvcError("NOT_FOUND", "No such key");
    errorResponse(error);
    assert.equal(prebuiltAnswer(error), undefined);
  });

  test("a reusable refusal still redacts a secret in its message", async () => {
    const error = reusableRefusal(new SvcError("FORBIDDEN_SCOPE", `No "svc_live_${"a".repeat(30)}"`));
    const text = await errorResponse(error).text();
    assert.equal(text.includes("svc_live_aaaa"), false);
    assert.equal(await errorResponse(error).text(), text);
  });
});
