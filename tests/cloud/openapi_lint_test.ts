// The cloud's document passes Redocly's recommended rules with no error; the
// warnings left are listed here, each with why it stays.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lintOpenApi } from "../fixtures/openapi_lint.ts";
import { runtime } from "../fixtures/runtime.ts";
import { startTestCloud } from "../fixtures/test_cloud.ts";

/**
 * The warnings that stay: the public document route and the health check cannot fail for a reason of the client's
 * (no 4XX: the health check answers 200 or 503 whatever is sent).
 */
const ACCEPTED_WARNINGS = [
  "operation-4xx-response #/paths/~1v1~1health/get/responses",
  "operation-4xx-response #/paths/~1v1~1openapi.json/get/responses",
];

test("GET /v1/openapi.json passes Redocly's recommended rules with no error and only the accepted warnings", {
  skip: runtime !== "node" && "Redocly's CLI is run with Node",
}, async () => {
  const t = await startTestCloud();
  try {
    const problems = await lintOpenApi((await t.raw("GET", "/v1/openapi.json")).body);
    assert.deepEqual(problems.filter((p) => p.severity === "error"), []);
    assert.deepEqual(problems.map((p) => `${p.ruleId} ${p.pointer}`), ACCEPTED_WARNINGS);
  } finally {
    await t.close();
  }
});
