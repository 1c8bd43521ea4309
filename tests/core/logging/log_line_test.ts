import { test } from "node:test";
import assert from "node:assert/strict";
import { expectedFailure, logLine, reconnectedAfter } from "../../../core/logging/mod.ts";
import { SvcError } from "../../../core/errors/mod.ts";

const AT = new Date("2026-11-25T11:00:00.000Z");

/** What fetch throws on Node when nothing listens. */
function refused(): SvcError {
  const socket = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), { code: "ECONNREFUSED" });
  return new SvcError("CLOUD_UNAVAILABLE", "The cloud cannot be reached", {
    cause: new TypeError("fetch failed", { cause: socket }),
  });
}

test("logLine() puts an ISO timestamp first and keeps an unexpected error's cause beside the line", () => {
  const boom = new Error("boom");
  assert.deepEqual(logLine("storage could not be opened", boom, AT), {
    line: "2026-11-25T11:00:00.000Z [svc] storage could not be opened",
    cause: boom,
  });
  assert.deepEqual(logLine("the outbox was purged", undefined, AT), {
    line: "2026-11-25T11:00:00.000Z [svc] the outbox was purged",
  });
});

test("logLine() writes an expected network failure as one line with its reason and no stack", () => {
  const { line, cause } = logLine("cloud sync paused; retrying in the background", refused(), AT);
  assert.equal(
    line,
    "2026-11-25T11:00:00.000Z [svc] cloud sync paused; retrying in the background: " +
      "The cloud cannot be reached (ECONNREFUSED)",
  );
  assert.equal(cause, undefined);
  assert.doesNotMatch(line, /\n/);
});

test("expectedFailure() knows the cloud's 5xx and refusals, and not a wrong answer shape or other errors", () => {
  const answered = new SvcError("CLOUD_UNAVAILABLE", "The cloud answered 503", { cause: 503 });
  assert.equal(expectedFailure(answered), "The cloud answered 503");
  const timedOut = new SvcError("CLOUD_UNAVAILABLE", "The cloud cannot be reached", {
    cause: new DOMException("The operation timed out.", "TimeoutError"),
  });
  assert.equal(expectedFailure(timedOut), "The cloud cannot be reached (TimeoutError)");
  const denoRefused = new SvcError("CLOUD_UNAVAILABLE", "The cloud cannot be reached", {
    cause: new TypeError("error sending request: tcp connect error: Connection refused (os error 111)"),
  });
  assert.equal(
    expectedFailure(denoRefused),
    "The cloud cannot be reached (error sending request: tcp connect error: Connection refused (os error 111))",
  );
  const badPort = new SvcError("CLOUD_UNAVAILABLE", "The cloud cannot be reached", {
    cause: new TypeError("fetch failed", { cause: new Error("bad port") }),
  });
  assert.equal(expectedFailure(badPort), "The cloud cannot be reached (bad port)", "the innermost cause says why");
  const shape = new SvcError("CLOUD_UNAVAILABLE", "The cloud's answer to GET /v1/x is not the documented shape", {
    cause: { surprising: true },
  });
  assert.equal(expectedFailure(shape), undefined);
  assert.equal(expectedFailure(new Error("boom")), undefined);
  assert.equal(expectedFailure(new SvcError("INTERNAL", "x", { cause: 500 })), undefined);
});

test("reconnectedAfter() says how long the link was down, in whole seconds", () => {
  assert.equal(reconnectedAfter(12_400), "reconnected after 12 s");
  assert.equal(reconnectedAfter(300), "reconnected after 0 s");
});
