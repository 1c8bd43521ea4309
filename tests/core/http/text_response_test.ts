import { test } from "node:test";
import assert from "node:assert/strict";
import { answerWith, errorResponse, json, textResponse } from "../../../core/http/mod.ts";
import { SvcError } from "../../../core/errors/mod.ts";

test("answers are of the class an adapter names, from then on", async () => {
  class Counted extends Response {
    static built = 0;
    constructor(body: string, init: ResponseInit) {
      super(body, init);
      Counted.built++;
    }
  }
  const previous = answerWith(Counted);
  try {
    const answer = json({ a: 1 }, 201);
    assert.ok(answer instanceof Counted);
    assert.equal(answer.status, 201);
    assert.deepEqual(await answer.json(), { a: 1 });
    const refusal = errorResponse(new SvcError("FORBIDDEN_SCOPE", "no"));
    assert.ok(refusal instanceof Counted);
    assert.equal(refusal.status, 403);
    assert.equal(textResponse("x", {}) instanceof Counted, true);
    assert.equal(Counted.built, 3);
  } finally {
    answerWith(previous);
  }
  assert.ok(!(json({ a: 1 }) instanceof Counted));
});
