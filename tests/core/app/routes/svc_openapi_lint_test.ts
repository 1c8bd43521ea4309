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
/** With `oauth`, OAuth's discovery documents too: public documents, the same for every caller. */
const OAUTH_WARNINGS = [
  "/.well-known/oauth-protected-resource/svc",
  "/.well-known/oauth-protected-resource/svc/mcp",
  "/.well-known/oauth-protected-resource/svc/agent/intents",
  "/.well-known/oauth-protected-resource/svc/agent/run",
  "/.well-known/oauth-authorization-server/svc",
].map((path) => `operation-4xx-response #/paths/${path.replaceAll("/", "~1")}/get/responses`);

test("GET /svc/openapi.json passes Redocly's recommended rules with no error and only the accepted warnings", {
  skip: runtime !== "node" && "Redocly's CLI is run with Node",
}, async () => {
  for (const overrides of [{}, { onAgentIntent: () => null }, { intents: [], scopes: [] }, { oauth: {} }]) {
    const svc = notesSvc(overrides);
    try {
      const document = await (await svc.handle(new Request(`${BASE}/svc/openapi.json`))).json();
      const problems = await lintOpenApi(document);
      assert.deepEqual(problems.filter((p) => p.severity === "error"), []);
      const accepted = "oauth" in overrides ? [...OAUTH_WARNINGS, ...ACCEPTED_WARNINGS] : ACCEPTED_WARNINGS;
      assert.deepEqual(problems.map((p) => `${p.ruleId} ${p.pointer}`).sort(), accepted.sort());
    } finally {
      await svc.close();
    }
  }
});
