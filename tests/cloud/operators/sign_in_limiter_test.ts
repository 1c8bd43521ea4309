import { test } from "node:test";
import assert from "node:assert/strict";
import {
  createSignInLimiter,
  MADE_UP_SLOTS,
  MAX_TRACKED,
  type SignInAttempt,
} from "../../../cloud/operators/sign_in_limiter.ts";

const attempt = (address: string | null, email: string, operator = true): SignInAttempt => ({
  address,
  email,
  operator,
});

test("the sign-in limiter lets 5 failures through, then waits 1 s doubling up to the cap", () => {
  const limiter = createSignInLimiter({ freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 8000 });
  const a = attempt("10.0.0.1", "a@example.com");
  for (let i = 0; i < 5; i++) {
    assert.equal(limiter.waitMs(a, 0), 0);
    limiter.fail(a, 0);
  }
  assert.equal(limiter.waitMs(a, 0), 1000);
  assert.equal(limiter.waitMs(a, 400), 600);
  const waits = [];
  for (let t = 1000; t < 10_000; t += 1000) {
    limiter.fail(a, t);
    waits.push(limiter.waitMs(a, t));
  }
  assert.deepEqual(waits.slice(0, 5), [2000, 4000, 8000, 8000, 8000]);
});

test("the sign-in limiter waits for the worse of address and account, forgets after the window, and clears", () => {
  const limiter = createSignInLimiter({ freeFailures: 1, baseDelayMs: 1000, windowMs: 60_000 });
  limiter.fail(attempt("10.0.0.1", "someone@example.com"), 0);
  assert.equal(limiter.waitMs(attempt("10.0.0.1", "x@example.com"), 0), 1000, "the address waits for any email");
  assert.equal(limiter.waitMs(attempt("10.0.0.2", "someone@example.com"), 0), 1000, "the account, from any address");
  assert.equal(limiter.waitMs(attempt("10.0.0.2", "x@example.com"), 0), 0);
  assert.equal(limiter.waitMs(attempt("10.0.0.1", "x@example.com"), 60_001), 0, "older than the window: forgotten");
  limiter.fail(attempt("10.0.0.3", "x@example.com"), 70_000);
  limiter.succeed(attempt("10.0.0.3", "x@example.com"));
  assert.equal(limiter.waitMs(attempt("10.0.0.4", "x@example.com"), 70_000), 0, "a success clears the account");
  assert.equal(limiter.waitMs(attempt("10.0.0.3", "y@example.com"), 70_000), 1000, "but not the address");
});

test("20,000 failures from distinct addresses, with made-up emails, do not reset an operator account's backoff", () => {
  const limiter = createSignInLimiter({ freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 15 * 60_000 });
  const target = (address: string) => attempt(address, "ops@example.com");
  for (let i = 0; i < 10; i++) limiter.fail(target(`10.1.0.${i}`), 0);
  const before = limiter.waitMs(target("10.9.9.9"), 0);
  assert.equal(before, 32_000);
  assert.equal(2 * MAX_TRACKED, 20_000);
  for (let i = 0; i < 2 * MAX_TRACKED; i++) {
    limiter.fail(attempt(`198.51.${i >> 8}.${i & 255}`, `made-up-${i}@example.com`, false), 1);
  }
  // Every email shares one keyed table, so a made-up email landing in the account's slot can only add to it.
  assert.ok(limiter.waitMs(target("10.9.9.9"), 0) >= before, "the account's count survived the churn");
  for (let i = 0; i < 2 * MAX_TRACKED; i++) limiter.fail(attempt(`203.0.${i >> 8}.${i & 255}`, "", false), 2);
  assert.ok(limiter.waitMs(target("10.9.9.9"), 0) >= before);
});

test("a made-up email is slowed down like an operator's, so a wait does not tell which emails are operators", () => {
  const limiter = createSignInLimiter({ freeFailures: 2, baseDelayMs: 1000 });
  for (const operator of [true, false]) {
    const email = `${operator}@example.com`;
    for (let i = 0; i < 3; i++) limiter.fail(attempt(`10.2.${operator}.${i}`, email, operator), 0);
    assert.equal(limiter.waitMs(attempt("10.3.0.1", email, operator), 0), 2000, email);
  }
});

test("a flood of 10,000 made-up emails leaves a waiting made-up email waiting, exactly like an operator's", () => {
  const limiter = createSignInLimiter({ freeFailures: 5, baseDelayMs: 1000, maxDelayMs: 15 * 60_000 });
  const victims = [attempt("10.4.0.1", "victim@x", false), attempt("10.4.0.1", "ops@x", true)];
  for (const victim of victims) {
    for (let i = 0; i < 6; i++) limiter.fail({ ...victim, address: `10.4.1.${i}` }, 0);
    assert.ok(limiter.waitMs({ ...victim, address: "10.4.2.1" }, 0) > 0, victim.email);
  }
  // Ten thousand fresh made-up emails from a handful of addresses (the limiter's own bookkeeping, not its waits).
  for (let i = 0; i < 10_000; i++) limiter.fail(attempt(`2001:db8:${i % 4}::${i}`, `fresh-${i}@x`, false), 1);
  for (const victim of victims) {
    assert.ok(limiter.waitMs({ ...victim, address: "10.4.2.1" }, 1) > 0, `${victim.email} still waits`);
  }
  assert.equal(MADE_UP_SLOTS, 65_536, "made-up emails are counted in a fixed table, whatever the volume");
});

test("failures from one IPv6 /64 count against one address, whatever the host part", () => {
  const limiter = createSignInLimiter({ freeFailures: 3, baseDelayMs: 1000 });
  for (let i = 1; i <= 3; i++) limiter.fail(attempt(`2001:db8:1:2::${i}`, `a${i}@example.com`, false), 0);
  assert.equal(limiter.waitMs(attempt("2001:db8:1:2:ffff::9", "b@example.com", false), 0), 1000, "same /64");
  assert.equal(limiter.waitMs(attempt("2001:db8:1:3::1", "b@example.com", false), 0), 0, "another /64");
});

test("an operator's email and a made-up one wait the same, even after 10,000 made-up failures", () => {
  const limiter = createSignInLimiter({ freeFailures: 5, baseDelayMs: 1000 });
  for (let i = 0; i < 10_000; i++) {
    limiter.fail(attempt(`198.51.${i >> 8}.${i & 255}`, `made-up-${i}@example.com`, false), 0);
  }
  let differ = 0;
  for (let i = 0; i < 1000; i++) {
    const email = `probe-${i}@example.com`;
    if (limiter.waitMs(attempt("10.9.9.9", email, true), 1) !== limiter.waitMs(attempt("10.9.9.9", email, false), 1)) {
      differ += 1;
    }
  }
  assert.equal(differ, 0, `${differ} of 1000 probes told an operator's email from a made-up one`);
});

test("an attempt counted before its check is released on success: the account clears, the address keeps none of it", () => {
  const limiter = createSignInLimiter({ freeFailures: 1, baseDelayMs: 1000 });
  const a = attempt("10.0.0.7", "ops@example.com");
  limiter.fail(a, 0);
  limiter.release(a, 0);
  limiter.succeed(a);
  assert.equal(limiter.waitMs(a, 0), 0);
});
