// One retry helper for everything that waits for the cloud: a run of failures with growing, capped, jittered
// delays that a success resets, and a loop that retries until success or abort.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { Backoff, retry } from "../../../core/retry/mod.ts";

describe("Backoff", () => {
  test("each failure doubles the delay up to the cap, within the jitter, and a reset starts again", () => {
    const backoff = new Backoff({ minMs: 100, maxMs: 1_000 });
    const bounds = [100, 200, 400, 800, 1_000, 1_000];
    for (const base of bounds) {
      const delay = backoff.next();
      assert.ok(delay >= base * 0.5 && delay < base * 1.5, `${delay} within [${base * 0.5}, ${base * 1.5})`);
    }
    assert.equal(backoff.failures, bounds.length);
    backoff.reset();
    assert.equal(backoff.failures, 0);
    assert.ok(backoff.next() < 150);
  });

  test("wait ends at once when the signal is already aborted", async () => {
    const backoff = new Backoff({ minMs: 60_000, maxMs: 60_000 });
    await backoff.wait(AbortSignal.abort());
    assert.equal(backoff.failures, 1);
  });
});

describe("retry", () => {
  test("tries until the task succeeds, telling each failure with its attempt", async () => {
    const told: number[] = [];
    let tries = 0;
    const result = await retry(
      () => ++tries < 4 ? Promise.reject(new Error(`down ${tries}`)) : Promise.resolve("landed"),
      { minMs: 1, maxMs: 2, signal: new AbortController().signal, onFailure: (_e, attempt) => void told.push(attempt) },
    );
    assert.equal(result, "landed");
    assert.equal(tries, 4);
    assert.deepEqual(told, [0, 1, 2]);
  });

  test("stops when the signal aborts during a wait, with undefined", async () => {
    const stop = new AbortController();
    let tries = 0;
    const result = await retry(() => {
      tries++;
      return Promise.reject(new Error("down"));
    }, { minMs: 60_000, maxMs: 60_000, signal: stop.signal, onFailure: () => stop.abort() });
    assert.equal(result, undefined);
    assert.equal(tries, 1);
  });

  test("never runs the task when the signal is already aborted", async () => {
    let tries = 0;
    const result = await retry(() => Promise.resolve(++tries), { minMs: 1, maxMs: 1, signal: AbortSignal.abort() });
    assert.equal(result, undefined);
    assert.equal(tries, 0);
  });
});
