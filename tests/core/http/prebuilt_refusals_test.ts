// Prebuilt refusals: a reusable error's answer is built once and served again as a fresh Response with the same bytes.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { SvcError } from "../../../core/errors/mod.ts";
import { answerKeptByClone, answerWith, errorResponse } from "../../../core/http/mod.ts";
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

describe("answerKeptByClone", () => {
  /** A Response class that counts what it builds (a clone is not built by it). */
  class Counted extends Response {
    static built = 0;
    constructor(body: string, init: ResponseInit) {
      super(body, init);
      Counted.built++;
    }
  }

  test("where the adapter asks, a reusable refusal is answered by clones of one kept Response, byte for byte", async () => {
    const error = reusableRefusal(
      new SvcError("FORBIDDEN_SCOPE", 'This key lacks scopes required by "notes.create"', {
        details: { missingScopes: ["notes:write"] },
      }),
    );
    const previousClass = answerWith(Counted);
    const previous = answerKeptByClone(true);
    try {
      const first = errorResponse(error); // built from the envelope
      const built = Counted.built;
      const answers = [errorResponse(error), errorResponse(error), errorResponse(error)];
      assert.equal(Counted.built, built + 1, "one Response kept, then only clones of it");
      answers[0].headers.set("x-changed", "1"); // an answer's headers are its own
      for (const answer of answers.slice(1)) {
        assert.equal(answer.status, 403);
        assert.deepEqual([...answer.headers], [["content-type", "application/json"]]);
        assert.equal(await answer.text(), await first.clone().text());
      }
      assert.equal(await answers[0].text(), await first.text());
    } finally {
      answerKeptByClone(previous);
      answerWith(previousClass);
    }
    const again = errorResponse(error); // off again: a new Response of the class named now
    assert.ok(!(again instanceof Counted));
    assert.equal(again.status, 403);
  });
});
