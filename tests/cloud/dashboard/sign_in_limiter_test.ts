import { test } from "node:test";
import assert from "node:assert/strict";
import { createSignInLimiter } from "../../../cloud/dashboard/sign_in_limiter.ts";

test("the sign-in limiter lets 5 failures through, then waits 1 s doubling up to the cap", () => {
  const limiter = createSignInLimiter({ freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 8000 });
  const key = ["account:a@example.com"];
  for (let i = 0; i < 5; i++) {
    assert.equal(limiter.waitMs(key, 0), 0);
    limiter.fail(key, 0);
  }
  assert.equal(limiter.waitMs(key, 0), 1000);
  assert.equal(limiter.waitMs(key, 400), 600);
  const waits = [];
  for (let t = 1000; t < 10_000; t += 1000) {
    limiter.fail(key, t);
    waits.push(limiter.waitMs(key, t));
  }
  assert.deepEqual(waits.slice(0, 5), [2000, 4000, 8000, 8000, 8000]);
});

test("the sign-in limiter waits for the worst of several keys, forgets after the window, and clears", () => {
  const limiter = createSignInLimiter({ freeFailures: 1, baseDelayMs: 1000, windowMs: 60_000 });
  limiter.fail(["address:1"], 0);
  assert.equal(limiter.waitMs(["address:1", "account:x"], 0), 1000);
  assert.equal(limiter.waitMs(["account:x"], 0), 0);
  assert.equal(limiter.waitMs(["address:1"], 60_001), 0, "failures older than the window are forgotten");
  limiter.fail(["account:x"], 70_000);
  limiter.clear(["account:x"]);
  assert.equal(limiter.waitMs(["account:x"], 70_000), 0);
});
