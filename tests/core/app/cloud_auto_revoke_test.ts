// The project's auto-revoke policy counted at the app: one by one, over the policy's window (on an injected
// clock), a coalesced summary of N repeats counting N (the one rule of core/violations), reached once per key.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createCloudAutoRevoke } from "../../../core/app/cloud_auto_revoke.ts";
import { type AutoRevokePolicy, newViolation, repeatedViolation, type Violation } from "../../../core/contract/mod.ts";

function counting(policy: AutoRevokePolicy | null) {
  let now = 0;
  const reached: string[] = [];
  const counter = createCloudAutoRevoke({ policy: () => policy, now: () => now });
  const note = (violation: Violation) => {
    const done = counter.note(violation);
    if (done) reached.push(violation.keyId);
    return done;
  };
  return { auto: { ...counter, note }, reached, advance: (ms: number) => now += ms };
}

const forbidden = (keyId: string) => newViolation("FORBIDDEN_SCOPE", { keyId, userId: "ann", message: "no" });

test("the threshold-th counted refusal within the window reaches it, once; older ones fall out of the window", () => {
  const { auto, reached, advance } = counting({ threshold: 3, windowMinutes: 1 });
  assert.equal(auto.note(forbidden("k1")), false);
  advance(61_000); // the first falls out of the window
  assert.equal(auto.note(forbidden("k1")), false);
  assert.equal(auto.note(forbidden("k1")), false);
  assert.equal(auto.refused("k1"), false);
  assert.equal(auto.note(forbidden("k1")), true);
  assert.equal(auto.refused("k1"), true);
  assert.equal(auto.note(forbidden("k1")), false, "reached once");
  assert.deepEqual(reached, ["k1"]);
  assert.equal(auto.refused("k2"), false, "per key");
});

test("a coalesced summary of N repeats counts N; kinds the policy does not count, and REVOKED_KEY, count nothing", () => {
  const { auto, reached } = counting({ threshold: 5, windowMinutes: 10 });
  const first = forbidden("k1");
  assert.equal(auto.note(repeatedViolation(first, 4, new Date(0).toISOString(), [])), false);
  assert.equal(auto.counts({ kind: "RATE_LIMITED", severity: "info" }), false);
  assert.equal(auto.counts({ kind: "REVOKED_KEY", severity: "warning" }), false);
  assert.equal(auto.note(forbidden("k1")), true);
  assert.deepEqual(reached, ["k1"]);
});

test("no policy: nothing counts", () => {
  const { auto } = counting(null);
  assert.equal(auto.counts({ kind: "FORBIDDEN_SCOPE", severity: "warning" }), false);
  assert.equal(auto.note(forbidden("k1")), false);
});
