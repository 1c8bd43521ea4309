// docs/reference.md is generated from the route tables (scripts/generate_reference.ts):
// the checked-in file must be what the generator writes today.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { REFERENCE_PATH, renderReference } from "../../scripts/generate_reference.ts";

test("docs/reference.md is what scripts/generate_reference.ts writes from the route tables", async () => {
  const expected = await renderReference();
  const actual = readFileSync(REFERENCE_PATH, "utf8");
  assert.ok(
    actual === expected,
    `${REFERENCE_PATH} is stale: run \`npm run docs:reference\` and commit the result`,
  );
});

test("docs/reference.md documents every route of /svc and /v1", () => {
  const text = readFileSync(REFERENCE_PATH, "utf8");
  const oauth = [
    "GET /svc/oauth/authorize",
    "POST /svc/oauth/token",
    "GET /.well-known/oauth-authorization-server/svc",
  ];
  for (const route of ["POST /svc/keys", "POST /svc/agent/run", "GET /svc/openapi.json", "POST /v1/events", ...oauth]) {
    assert.match(text, new RegExp(`### \`${route.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\``), route);
  }
});
