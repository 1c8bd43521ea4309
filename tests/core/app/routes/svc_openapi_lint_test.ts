// The /svc document passes Redocly's recommended rules with no error; the
// warnings left are listed here, each with why it stays.
import { test } from "node:test";
import assert from "node:assert/strict";
import { lintOpenApi } from "../../../fixtures/openapi_lint.ts";
import { BASE, notesSvc } from "../../../fixtures/notes_svc.ts";
import { runtime } from "../../../fixtures/runtime.ts";

/** The warnings that stay: the public document and health routes cannot fail for a reason of the client's (no 4XX). */
const ACCEPTED_WARNINGS = [
  "operation-4xx-response #/paths/~1svc~1health/get/responses",
  "operation-4xx-response #/paths/~1svc~1openapi.json/get/responses",
];

test("GET /svc/openapi.json passes Redocly's recommended rules with no error and only the accepted warnings", {
  skip: runtime !== "node" && "Redocly's CLI is run with Node",
}, async () => {
  for (const overrides of [{}, { onAgentIntent: () => null }, { intents: [], scopes: [] }]) {
    const svc = notesSvc(overrides);
    try {
      const document = await (await svc.handle(new Request(`${BASE}/svc/openapi.json`))).json();
      const problems = await lintOpenApi(document);
      assert.deepEqual(problems.filter((p) => p.severity === "error"), []);
      assert.deepEqual(problems.map((p) => `${p.ruleId} ${p.pointer}`), ACCEPTED_WARNINGS);
    } finally {
      await svc.close();
    }
  }
});
